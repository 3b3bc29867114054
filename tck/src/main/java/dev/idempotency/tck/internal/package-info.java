/**
 * The TCK's machinery, not an API: the rule table, the controllable clock and the real-time timing
 * profile, the sequential reference model, the history generators and recorder, the invariant and
 * linearizability checkers, and the concurrency gate. Public only where {@code KeyStoreContract} in
 * the parent package needs it; the module does not export this package, and its classes may change
 * in any release.
 */
@NullMarked
package dev.idempotency.tck.internal;

import org.jspecify.annotations.NullMarked;
