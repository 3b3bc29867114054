package dev.idempotency.core.internal;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.LeaseLostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/** The engine's {@link Execution}: one per won claim. */
public final class ExecutionImpl implements Execution {
  private final KeyStore store;
  private final RecordId id;
  private final FenceToken fence;
  private final Optional<RecoveryPoint> resumeFrom;
  private final boolean takeover;
  private final InstantSource clock;
  private final Duration lease;
  // written by the operation's thread (or a store it called), read by the engine after the operation returned
  private volatile RecoveryPoint committedPoint;
  private volatile StoredResponse committedResponse;
  // set by the heartbeat thread or a refused checkpoint, read by the operation
  private volatile boolean leaseLost;

  /** Creates the execution of one won claim. */
  public ExecutionImpl(KeyStore store, RecordId id, FenceToken fence, Optional<RecoveryPoint> resumeFrom,
      boolean takeover, InstantSource clock, Duration lease) {
    this.store = store;
    this.id = id;
    this.fence = fence;
    this.resumeFrom = resumeFrom;
    this.takeover = takeover;
    this.clock = clock;
    this.lease = lease;
    // a resumed request has committed phases already: failing now must not release it
    this.committedPoint = resumeFrom.orElse(null);
  }

  @Override
  public RecordId recordId() {
    return id;
  }

  @Override
  public FenceToken fence() {
    return fence;
  }

  @Override
  public Optional<RecoveryPoint> resumeFrom() {
    return resumeFrom;
  }

  @Override
  public boolean isTakeover() {
    return takeover;
  }

  @Override
  public Instant now() {
    return clock.instant();
  }

  @Override
  public Duration lease() {
    return lease;
  }

  @Override
  public void checkpoint(RecoveryPoint point) {
    Objects.requireNonNull(point, "point");
    try {
      store.checkpoint(id, fence, point, clock.instant(), lease);
    } catch (LeaseLostException e) {
      leaseLost = true;
      throw e;
    }
    committedPoint = point;
  }

  @Override
  public boolean leaseLost() {
    return leaseLost;
  }

  /** Records that a write under this fence was refused: another owner has the record. */
  public void markLeaseLost() {
    leaseLost = true;
  }

  @Override
  public IdempotencyKey downstreamKey(String purpose) {
    Objects.requireNonNull(purpose, "purpose");
    if (purpose.isEmpty() || purpose.length() > 64) {
      throw new IllegalArgumentException("purpose must be 1 to 64 characters, but had " + purpose.length());
    }
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      // length-prefixed parts, so that ("a/b", "c") and ("a", "b/c") cannot produce the same input
      for (String part : new String[] {id.scope().value(), id.key().value(), purpose}) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
      }
      return IdempotencyKey.of("dk-" + HexFormat.of().formatHex(sha.digest(), 0, 24));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  @Override
  public void phaseCommitted(RecoveryPoint point) {
    committedPoint = Objects.requireNonNull(point, "point");
  }

  @Override
  public void completionCommitted(StoredResponse response) {
    committedResponse = Objects.requireNonNull(response, "response");
  }

  /** The last recovery point committed by this or a previous owner, if any. */
  public Optional<RecoveryPoint> committedPoint() {
    return Optional.ofNullable(committedPoint);
  }

  /** The response a transactional store already committed as the completion, if any. */
  public Optional<StoredResponse> committedResponse() {
    return Optional.ofNullable(committedResponse);
  }
}
