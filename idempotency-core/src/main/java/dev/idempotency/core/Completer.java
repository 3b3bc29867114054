package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import java.util.Objects;
import java.util.Optional;

/**
 * Drives abandoned in-flight requests to completion, instead of waiting for their clients to retry.
 *
 * <p>{@link #runOnce(int)} finds in-flight records whose lease expired and, for each one the
 * application knows how to resume (its {@link Resumer} returns an operation), takes it over through
 * the engine (a fenced claim with the record's own fingerprint) and runs the operation from the
 * last recovery point. A record whose lease was renewed, or that another completer or a retry took
 * first, is skipped: the claim arbitrates. So is one that is no longer the request that was listed
 * (released and claimed afresh in between, or another request's): the completer's claim of it is
 * given back at once and the resumer's operation does not run, so a request nobody sent never runs.
 * Thread-safe.
 */
public final class Completer {
  private static final System.Logger LOG = System.getLogger(Completer.class.getName());

  /**
   * Maps an abandoned record to the operation that resumes it; empty when it cannot be resumed
   * here.
   */
  @FunctionalInterface
  public interface Resumer {
    /**
     * The operation that finishes {@code record} from its recovery point, or empty to leave it
     * alone.
     */
    Optional<Operation<? extends Answer>> operationFor(RecordSnapshot record);
  }

  /**
   * What one run did.
   *
   * @param found abandoned records found
   * @param completed records this run completed
   * @param skipped records left alone (no operation, or someone else got there first)
   * @param failed records whose resumed operation failed again
   */
  public record Report(int found, int completed, int skipped, int failed) {}

  private final IdempotencyEngine engine;
  private final Resumer resumer;

  /** A completer that resumes through {@code engine} what {@code resumer} knows how to resume. */
  public Completer(IdempotencyEngine engine, Resumer resumer) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.resumer = Objects.requireNonNull(resumer, "resumer");
  }

  /**
   * Resumes up to {@code limit} abandoned records.
   *
   * @throws IllegalArgumentException if {@code limit} is not positive
   * @throws InterruptedException if interrupted between records
   */
  public Report runOnce(int limit) throws InterruptedException {
    KeyStore store = engine.store();
    var abandoned = store.findAbandoned(engine.config().clock().instant(), limit);
    int completed = 0;
    int skipped = 0;
    int failed = 0;
    for (RecordSnapshot record : abandoned) {
      switch (resume(record)) {
        case COMPLETED -> completed++;
        case SKIPPED -> skipped++;
        case FAILED -> failed++;
      }
    }
    return new Report(abandoned.size(), completed, skipped, failed);
  }

  /**
   * Resumes one record, by its id, as {@link #runOnce} would if it listed it: for a person who
   * settles a stuck key ({@link KeyStoreAdmin#redrive}). A record that is not in flight with an
   * expired lease at the engine's time (by the store's clock, for a {@code SERVER_CLOCK} store: its
   * claim decides) is not found: the report's {@code found} is 0.
   *
   * @throws NullPointerException if {@code id} is null
   */
  public Report runFor(RecordId id) {
    Objects.requireNonNull(id, "id");
    Optional<RecordSnapshot> record = engine.store().lookup(id);
    boolean serverClock = engine.store().capabilities().contains(StoreCapability.SERVER_CLOCK);
    boolean abandoned =
        record.isPresent()
            && record.get().state() == KeyState.IN_FLIGHT
            && (serverClock
                || RecordSelection.ABANDONED.matches(
                    record.get(), engine.config().clock().instant()));
    if (!abandoned) {
      return new Report(0, 0, 0, 0);
    }
    return switch (resume(record.get())) {
      case COMPLETED -> new Report(1, 1, 0, 0);
      case SKIPPED -> new Report(1, 0, 1, 0);
      case FAILED -> new Report(1, 0, 0, 1);
    };
  }

  private enum Resumed {
    COMPLETED,
    SKIPPED,
    FAILED
  }

  private Resumed resume(RecordSnapshot record) {
    Optional<Operation<? extends Answer>> operation = resumer.operationFor(record);
    if (operation.isEmpty()) {
      return Resumed.SKIPPED;
    }
    try {
      Optional<Outcome> resumed = engine.resume(record, operation.get());
      return resumed.isPresent()
              && resumed.get() instanceof Outcome.Executed executed
              && executed.stored()
          ? Resumed.COMPLETED
          : Resumed.SKIPPED;
    } catch (OperationFailedException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "completer: resuming " + record.id() + " failed", e);
      return Resumed.FAILED;
    }
  }
}
