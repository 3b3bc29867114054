/**
 * The gRPC binding of the idempotency contract: {@link
 * dev.idempotency.grpc.IdempotencyServerInterceptor} on the server, {@link
 * dev.idempotency.grpc.IdempotencyClientInterceptor} and {@link
 * dev.idempotency.grpc.GrpcRetryServiceConfig} on the client.
 */
@NullMarked
package dev.idempotency.grpc;

import org.jspecify.annotations.NullMarked;
