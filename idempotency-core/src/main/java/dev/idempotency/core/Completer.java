package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
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
      Optional<Operation<? extends Answer>> operation = resumer.operationFor(record);
      if (operation.isEmpty()) {
        skipped++;
        continue;
      }
      try {
        Optional<Outcome> resumed = engine.resume(record, operation.get());
        if (resumed.isPresent()
            && resumed.get() instanceof Outcome.Executed executed
            && executed.stored()) {
          completed++;
        } else {
          skipped++;
        }
      } catch (OperationFailedException | RuntimeException e) {
        failed++;
        LOG.log(System.Logger.Level.WARNING, "completer: resuming " + record.id() + " failed", e);
      }
    }
    return new Report(abandoned.size(), completed, skipped, failed);
  }
}
