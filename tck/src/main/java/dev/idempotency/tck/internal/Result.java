package dev.idempotency.tck.internal;

import dev.idempotency.RecordId;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** What one {@link Op} returned or threw. */
public sealed interface Result {

  /** The result, for a printed history. */
  String describe();

  /** A claim's outcome. */
  record Outcome(ClaimOutcome outcome) implements Result {
    @Override
    public String describe() {
      return Describe.outcome(outcome);
    }
  }

  /** A fenced write that succeeded. */
  record Ok() implements Result {
    @Override
    public String describe() {
      return "ok";
    }
  }

  /** A fenced write refused with LeaseLostException, and the exception's message, if it had one. */
  record Lost(@Nullable String message) implements Result {
    @Override
    public String describe() {
      return "LeaseLostException";
    }
  }

  /** A lookup's result. */
  record Snapshot(Optional<RecordSnapshot> snapshot) implements Result {
    @Override
    public String describe() {
      return Describe.snapshot(snapshot);
    }
  }

  /** findAbandoned's result. */
  record Found(List<RecordSnapshot> records) implements Result {
    @Override
    public String describe() {
      return Describe.snapshots(records);
    }
  }

  /**
   * deleteExpired's count, and, when the sequential runner looked, which of the history's records
   * it deleted (null when unknown).
   */
  record Deleted(int count, @Nullable Set<RecordId> which) implements Result {
    @Override
    public String describe() {
      return count + " deleted" + (which == null ? "" : " " + which);
    }
  }

  /** Any other exception, which no rule allows in a history. */
  record Threw(Throwable error) implements Result {
    @Override
    public String describe() {
      return "threw " + error;
    }
  }
}
