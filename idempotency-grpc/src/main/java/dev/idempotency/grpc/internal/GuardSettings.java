package dev.idempotency.grpc.internal;

import dev.idempotency.Execution;
import dev.idempotency.core.IdempotencyEngine;
import io.grpc.Context;
import io.grpc.Status;
import java.time.Duration;
import java.util.Set;

/**
 * The server interceptor's settings, as its calls use them.
 *
 * @param engine the engine every guarded call runs through
 * @param storedMetadataKeys the metadata keys (lower case) stored and replayed besides the status
 *     details
 * @param storedCodes the status codes whose answers are stored; an answer with another code
 *     releases the key
 * @param maxStoredResponseBytes the largest message stored; a larger one stores the not-stored
 *     marker
 * @param storeUnavailableRetryAfter the RetryInfo delay and pushback of a store outage
 * @param executionKey the context key under which the handler finds its {@link Execution}
 */
public record GuardSettings(
    IdempotencyEngine engine,
    Set<String> storedMetadataKeys,
    Set<Status.Code> storedCodes,
    int maxStoredResponseBytes,
    Duration storeUnavailableRetryAfter,
    Context.Key<Execution> executionKey) {}
