/**
 * The gRPC demo: a payments service behind the idempotency server interceptor, and the clients that
 * call it with the client interceptor and gRPC's own retries.
 */
@NullMarked
package dev.idempotency.examples.grpc;

import org.jspecify.annotations.NullMarked;
