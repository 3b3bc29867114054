package dev.idempotency.tck.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One SPI call of a generated history, with all its arguments (including {@code now}), so the
 * reference model can replay it and a failure can print it. {@code via} is the index of the store
 * instance that ran it (0 for the store, 1.. for its peers).
 */
public sealed interface Op {

  /** The instance the call went to. */
  int via();

  /** The record the call is about, or null for the calls over all records. */
  @Nullable RecordId id();

  /** Runs the call and captures its result or exception. */
  default Result run(KeyStore store) {
    try {
      return call(store);
    } catch (LeaseLostException e) {
      return new Result.Lost(e.getMessage());
    } catch (RuntimeException | Error e) {
      return new Result.Threw(e);
    }
  }

  /** Runs the call. */
  Result call(KeyStore store);

  /** The call, for a printed history; times relative to {@code base}. */
  String describe(Instant base);

  /** {@code claim}. */
  record Claim(
      int via, RecordId id, Fingerprint fingerprint, Instant now, Duration lease, Duration window)
      implements Op {
    @Override
    public Result call(KeyStore store) {
      return new Result.Outcome(store.claim(new ClaimRequest(id, fingerprint, now, lease, window)));
    }

    @Override
    public String describe(Instant base) {
      return "claim("
          + id
          + ", "
          + Describe.fingerprint(fingerprint)
          + ", now="
          + Describe.relative(now, base)
          + ", lease="
          + lease
          + ", window="
          + window
          + ")";
    }
  }

  /** {@code heartbeat}. */
  record Heartbeat(int via, RecordId id, FenceToken fence, Instant now, Duration lease)
      implements Op {
    @Override
    public Result call(KeyStore store) {
      store.heartbeat(id, fence, now, lease);
      return new Result.Ok();
    }

    @Override
    public String describe(Instant base) {
      return "heartbeat("
          + id
          + ", "
          + fence
          + ", now="
          + Describe.relative(now, base)
          + ", lease="
          + lease
          + ")";
    }
  }

  /** {@code checkpoint}. */
  record Checkpoint(
      int via, RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease)
      implements Op {
    @Override
    public Result call(KeyStore store) {
      store.checkpoint(id, fence, point, now, lease);
      return new Result.Ok();
    }

    @Override
    public String describe(Instant base) {
      return "checkpoint("
          + id
          + ", "
          + fence
          + ", "
          + point.name()
          + ", now="
          + Describe.relative(now, base)
          + ", lease="
          + lease
          + ")";
    }
  }

  /** {@code complete}. */
  record Complete(int via, RecordId id, FenceToken fence, StoredResponse response, Instant now)
      implements Op {
    @Override
    public Result call(KeyStore store) {
      store.complete(id, fence, response, now);
      return new Result.Ok();
    }

    @Override
    public String describe(Instant base) {
      return "complete("
          + id
          + ", "
          + fence
          + ", "
          + Describe.response(response)
          + ", now="
          + Describe.relative(now, base)
          + ")";
    }
  }

  /** {@code release}. */
  record Release(int via, RecordId id, FenceToken fence, Instant now) implements Op {
    @Override
    public Result call(KeyStore store) {
      store.release(id, fence, now);
      return new Result.Ok();
    }

    @Override
    public String describe(Instant base) {
      return "release(" + id + ", " + fence + ", now=" + Describe.relative(now, base) + ")";
    }
  }

  /** {@code lookup}. */
  record Lookup(int via, RecordId id) implements Op {
    @Override
    public Result call(KeyStore store) {
      Optional<dev.idempotency.spi.RecordSnapshot> snapshot = store.lookup(id);
      return new Result.Snapshot(snapshot);
    }

    @Override
    public String describe(Instant base) {
      return "lookup(" + id + ")";
    }
  }

  /** {@code findAbandoned}. */
  record FindAbandoned(int via, Instant now, int limit) implements Op {
    @Override
    public @Nullable RecordId id() {
      return null;
    }

    @Override
    public Result call(KeyStore store) {
      return new Result.Found(store.findAbandoned(now, limit));
    }

    @Override
    public String describe(Instant base) {
      return "findAbandoned(now=" + Describe.relative(now, base) + ", limit=" + limit + ")";
    }
  }

  /** {@code deleteExpired}. */
  record DeleteExpired(int via, Instant now, Duration retention, int limit) implements Op {
    @Override
    public @Nullable RecordId id() {
      return null;
    }

    @Override
    public Result call(KeyStore store) {
      return new Result.Deleted(store.deleteExpired(now, retention, limit), null);
    }

    @Override
    public String describe(Instant base) {
      return "deleteExpired(now="
          + Describe.relative(now, base)
          + ", retention="
          + retention
          + ", limit="
          + limit
          + ")";
    }
  }
}
