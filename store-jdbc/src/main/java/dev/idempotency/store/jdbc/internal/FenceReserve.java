package dev.idempotency.store.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Fences for optimistic one-transaction requests, drawn ahead in batches so that a request's fence
 * costs no round trip of its own: the work must see its fence before the record's insert, the
 * statement that would otherwise draw it. One statement draws {@link #BATCH} fences (PostgreSQL:
 * {@code nextval} of the store's sequence, once per row of {@code generate_series}; MySQL and
 * MariaDB: the database clock in microseconds, the fresh fence those dialects' claims use, and the
 * next {@code BATCH - 1} microseconds).
 *
 * <p>A fence serves only a key with no row at all (the insert conflicts with any row), so it need
 * only be greater than the fences of the key's purged records. Every such fence was drawn after
 * this batch, or is smaller; a record of it was then completed or released after this batch was
 * drawn and purged after the retention. A drawn fence older than {@link #MAX_AGE_NANOS} is
 * therefore thrown away unused: fences stay increasing per key while the retention is longer than
 * that, which every practical retention is. Thread-safe.
 */
final class FenceReserve {
  /** Fences drawn per statement. */
  static final int BATCH = 32;

  /** How long a drawn fence may wait for a request. */
  static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final String draw;
  private final boolean consecutive;
  private final ConcurrentLinkedQueue<Drawn> ready = new ConcurrentLinkedQueue<>();

  private FenceReserve(String draw, boolean consecutive) {
    this.draw = draw;
    this.consecutive = consecutive;
  }

  /** {@link #BATCH} values of {@code sequence}. */
  static FenceReserve ofSequence(String sequence) {
    return new FenceReserve(
        "SELECT nextval('" + sequence + "') FROM generate_series(1, " + BATCH + ")", false);
  }

  /** {@code micros}, a database clock expression, and the {@link #BATCH} - 1 values after it. */
  static FenceReserve ofClock(String micros) {
    return new FenceReserve("SELECT " + micros, true);
  }

  /**
   * A fence for one request (from a sequence, no other request's; from the clock, possibly another
   * key's too, which is all fences promise); draws a batch on {@code c} when none is left that is
   * younger than {@link #MAX_AGE_NANOS}.
   */
  long next(Connection c, SqlDialect sql) throws SQLException {
    long now = System.nanoTime();
    for (Drawn d; (d = ready.poll()) != null; ) {
      if (now - d.drawnAt() < MAX_AGE_NANOS) {
        return d.fence();
      }
    }
    long drawnAt = System.nanoTime();
    long first = -1;
    try (PreparedStatement ps =
            sql.withTimeout(c.prepareStatement(draw), sql.queryTimeoutSeconds());
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long fence = rs.getLong(1);
        if (consecutive) {
          first = fence;
          for (int i = 1; i < BATCH; i++) {
            ready.add(new Drawn(fence + i, drawnAt));
          }
        } else if (first < 0) {
          first = fence;
        } else {
          ready.add(new Drawn(fence, drawnAt));
        }
      }
    }
    if (first <= 0) {
      throw new SQLException("drawing fences returned no positive value: " + draw);
    }
    return first;
  }

  /** A fence and when its batch was drawn ({@link System#nanoTime()}). */
  private record Drawn(long fence, long drawnAt) {}
}
