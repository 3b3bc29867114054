package dev.idempotency.store.jdbc.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The owner's writes to its record, for one dialect: the heartbeat, the checkpoint, the completion
 * and the release, each one {@code UPDATE … WHERE fence = :fence AND state = 'I'}, and what an
 * update count other than 1 means; and a person's extension of a record's retention, fenced the
 * same way but on an in-flight or a complete record. Every dialect shares them; the time they write
 * is the dialect's {@link SqlDialect#fencedNow()}. Immutable and thread-safe.
 *
 * <p>Every fenced write bumps {@code row_version}, so that it always changes the row: MySQL drivers
 * that report found rows and those that report changed rows then agree on the update count (1 =
 * written, 0 = fence refused).
 */
final class FencedWrites {
  private static final String FENCED =
      """
      WHERE scope = :scope AND idem_key = :key AND fence = :fence AND state = 'I'""";

  private final SqlDialect sql;
  private final NamedSql heartbeat;
  private final NamedSql checkpoint;
  private final NamedSql complete;
  private final NamedSql release;
  private final NamedSql extendRetention;

  FencedWrites(SqlDialect sql) {
    this.sql = sql;
    String t = sql.names.table();
    String fnow = sql.fencedNow();
    this.heartbeat =
        parse(
            """
            UPDATE {table} SET lease_expires_at_ns = {now} + :lease,
              retain_from_ns = {now} + :lease, row_version = row_version + 1
            """,
            t,
            fnow);
    this.checkpoint =
        parse(
            """
            UPDATE {table} SET rp_name = :rpName, rp_data = :rpData,
              lease_expires_at_ns = {now} + :lease, retain_from_ns = {now} + :lease,
              row_version = row_version + 1
            """,
            t,
            fnow);
    this.complete =
        parse(
            """
            UPDATE {table} SET state = 'C', completed_at_ns = {now}, retain_from_ns = {now},
              lease_expires_at_ns = NULL, response_status = :status,
              response_headers = :headers, response_body = :body, row_version = row_version + 1
            """,
            t,
            fnow);
    this.release =
        parse(
            """
            UPDATE {table} SET state = 'R', retain_from_ns = {now}, lease_expires_at_ns = NULL,
              rp_name = NULL, rp_data = NULL, row_version = row_version + 1
            """,
            t,
            fnow);
    // keep_until_ns is read by the reaper only: the state, the lease, the completion time (and so
    // the window) and retain_from_ns (the abandoned records' index) stay as they are
    this.extendRetention =
        NamedSql.parse(
            """
            UPDATE {table} SET
              keep_until_ns = GREATEST(COALESCE(keep_until_ns, :keepUntil), :keepUntil),
              row_version = row_version + 1
            WHERE scope = :scope AND idem_key = :key AND fence = :fence AND state IN ('I', 'C')"""
                .replace("{table}", t));
  }

  /**
   * The condition of a record the reaper may delete at {@code now} as far as a person's extension
   * goes: none, or one that has run out.
   */
  static String notKeptAt(String now) {
    return notKeptAt("", now);
  }

  /** {@link #notKeptAt(String)} of the row named {@code alias} (with its dot), for a join. */
  static String notKeptAt(String alias, String now) {
    return "(" + alias + "keep_until_ns IS NULL OR " + alias + "keep_until_ns <= " + now + ")";
  }

  /** {@code set}, the {@code UPDATE … SET …} of one write, with the fence's condition appended. */
  private static NamedSql parse(String set, String table, String now) {
    return NamedSql.parse((set + FENCED).replace("{table}", table).replace("{now}", now));
  }

  /** Renews the lease; {@code p} holds the record, {@code :fence} and {@code :lease}. */
  void heartbeat(Connection c, ParamValues p) throws SQLException {
    write(heartbeat, c, p);
  }

  /** Renews the lease and stores the recovery point {@code p} holds. */
  void checkpoint(Connection c, ParamValues p) throws SQLException {
    write(checkpoint, c, p);
  }

  /** Completes the record with the response {@code p} holds. */
  void complete(Connection c, ParamValues p) throws SQLException {
    write(complete, c, p);
  }

  /** Releases the record: a tombstone that keeps the fence. */
  void release(Connection c, ParamValues p) throws SQLException {
    write(release, c, p);
  }

  /** Keeps the record until {@code :keepUntil} at least, under {@code :fence}. */
  void extendRetention(Connection c, ParamValues p) throws SQLException {
    write(extendRetention, c, p);
  }

  /**
   * Runs one fenced write.
   *
   * @throws LeaseLostException if the fence no longer holds (the exception says what the record
   *     looks like now)
   * @throws KeyStoreException if it changed more than one row: the table's primary key is not the
   *     store's
   */
  private void write(NamedSql statement, Connection c, ParamValues p) throws SQLException {
    int count = sql.update(statement, c, p);
    if (count == 0) {
      String found = sql.read(c, p).map(Row::describe).orElse("record is absent (purged)");
      throw new LeaseLostException(p.recordId(), p.fenceToken(), found);
    }
    if (count != 1) {
      throw new KeyStoreException(
          "a fenced write on "
              + p.recordId()
              + " changed "
              + count
              + " rows of "
              + sql.names.table()
              + "; is its primary key (scope, idem_key)?");
    }
  }
}
