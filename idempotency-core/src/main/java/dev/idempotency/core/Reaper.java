package dev.idempotency.core;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Deletes records past retention, in bounded batches, and reports what it found unfinished.
 *
 * <p>Each {@link #runOnce()} deletes expired records with {@link KeyStore#deleteExpired} one batch
 * at a time, up to {@code maxBatches}, so that no single delete holds locks for long and one run
 * cannot monopolise the store, and logs at WARNING each in-flight record it deleted (nobody
 * completed it; a human may need to look).
 *
 * <p>The report says what was deleted, not what should have been: before deleting, the reaper lists
 * the in-flight records whose lease ended by {@code now - retention} ({@link
 * KeyStore#findAbandoned}); after deleting, it reports those of them that are gone. A store that
 * judges time by its server's clock ({@link dev.idempotency.spi.StoreCapability#SERVER_CLOCK})
 * ignores the engine's cutoff and lists every expired lease, oldest first; a store may also skip
 * records another transaction holds locked. Either way only the records the delete took are
 * reported. The check costs one {@link KeyStore#lookup} per listed record, and only in a run that
 * deleted something. Run it on one instance (or accept that two instances reaping at once only
 * duplicate harmless deletes, and may each report a record the other deleted). Thread-safe.
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
   * @param unfinished in-flight records, abandoned for longer than the retention, that this run
   *     deleted: listed before deleting, absent after (at most one batch of them is listed; a later
   *     run reports the rest)
   * @param more whether the last batch was full, so expired records may remain for the next run
   */
  public record Report(int deleted, int batches, List<RecordSnapshot> unfinished, boolean more) {
    /** Copies {@code unfinished}. */
    public Report {
      unfinished = List.copyOf(unfinished);
    }
  }

  /**
   * Runs one bounded pass: delete up to {@code maxBatches} batches, then report the unfinished
   * records deleted.
   */
  public Report runOnce() {
    Instant now = clock.instant();
    List<RecordSnapshot> candidates = store.findAbandoned(now.minus(retention), batchSize);
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
    List<RecordSnapshot> unfinished = new ArrayList<>();
    if (deleted > 0) {
      for (RecordSnapshot s : candidates) {
        if (store.lookup(s.id()).isEmpty()) {
          unfinished.add(s);
          LOG.log(
              System.Logger.Level.WARNING,
              "reaper: deleted "
                  + s.id()
                  + ", in flight and abandoned since "
                  + s.leaseExpiresAt().orElseThrow()
                  + " (last recovery point: "
                  + s.recoveryPoint().map(Object::toString).orElse("none")
                  + "); it never completed");
        }
      }
    }
    return new Report(deleted, batches, unfinished, last == batchSize);
  }
}
