/**
 * Not API: how the auto-configuration maps properties onto the builders, checks the filter's order,
 * and schedules the reaper, the completer and the abandoned-keys sample.
 */
@NullMarked
package dev.idempotency.spring.boot.autoconfigure.internal;

import org.jspecify.annotations.NullMarked;
