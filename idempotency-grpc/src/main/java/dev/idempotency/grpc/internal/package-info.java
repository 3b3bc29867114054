/** The server interceptor's machinery: not exported. */
@NullMarked
package dev.idempotency.grpc.internal;

import org.jspecify.annotations.NullMarked;
