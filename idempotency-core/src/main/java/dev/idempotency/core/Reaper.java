package dev.idempotency.core;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;

/**
 * Deletes records past retention, in bounded batches, and reports what it found unfinished.
 *
 * <p>Each {@link #runOnce()} first lists in-flight records that were abandoned for longer than the retention
 * (nobody completed them; a human may need to look) and logs them at WARNING, then deletes expired records with
 * {@link KeyStore#deleteExpired} one batch at a time, up to {@code maxBatches}, so that no single delete holds
 * locks for long and one run cannot monopolise the store. Run it on one instance (or accept that two instances
 * reaping at once only duplicate harmless deletes). Thread-safe.
 */
public final class Reaper {
  private static final System.Logger LOG = System.getLogger(Reaper.class.getName());

  private final KeyStore store;
  private final Duration retention;
  private final InstantSource clock;
  private final int batchSize;
  private final int maxBatches;

  /**
   * @param store the store to reap
   * @param config the engine's configuration (its retention and clock)
   * @param batchSize records per delete, positive (e.g. 500)
   * @param maxBatches batches per run, positive
   * @throws IllegalArgumentException naming the setting when a count is not positive
   */
  public Reaper(KeyStore store, IdempotencyConfig config, int batchSize, int maxBatches) {
    this.store = Objects.requireNonNull(store, "store");
    this.retention = config.retention();
    this.clock = config.clock();
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be > 0, but was " + batchSize);
    }
    if (maxBatches <= 0) {
      throw new IllegalArgumentException("maxBatches must be > 0, but was " + maxBatches);
    }
    this.batchSize = batchSize;
    this.maxBatches = maxBatches;
  }

  /**
   * What one run did.
   *
   * @param deleted records deleted
   * @param batches delete batches issued
   * @param unfinished in-flight records abandoned for longer than the retention, as found before deleting (at most
   *     one batch of them is listed); this run or a later one deletes them with the rest
   * @param more whether the last batch was full, so expired records may remain for the next run
   */
  public record Report(int deleted, int batches, List<RecordSnapshot> unfinished, boolean more) {
    /** Copies {@code unfinished}. */
    public Report {
      unfinished = List.copyOf(unfinished);
    }
  }

  /** Runs one bounded pass: report the unfinished, then delete up to {@code maxBatches} batches. */
  public Report runOnce() {
    Instant now = clock.instant();
    List<RecordSnapshot> unfinished = store.findAbandoned(now.minus(retention), batchSize);
    for (RecordSnapshot s : unfinished) {
      LOG.log(System.Logger.Level.WARNING, "reaper: deleting " + s.id() + ", in flight and abandoned since "
          + s.leaseExpiresAt().orElseThrow() + " (last recovery point: "
          + s.recoveryPoint().map(Object::toString).orElse("none") + "); it never completed");
    }
    int deleted = 0;
    int batches = 0;
    int last = 0;
    while (batches < maxBatches) {
      last = store.deleteExpired(now, retention, batchSize);
      batches++;
      deleted += last;
      if (last < batchSize) {
        break;
      }
    }
    return new Report(deleted, batches, unfinished, last == batchSize);
  }
}
