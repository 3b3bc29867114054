package dev.idempotency.examples.bootcrash;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A row of the ledger, as JPA maps it; {@code /ledger/jdbc} inserts the same columns with {@code
 * JdbcTemplate}. The table has no unique constraint on the key, deliberately: a request run twice
 * must show as two rows, not be refused by the table. "record_key", not "key": KEY is reserved in
 * MariaDB.
 */
@Entity
@Table(name = LedgerRow.TABLE)
public class LedgerRow {
  static final String TABLE = "boot_crash_ledger";

  @Id
  @Column(length = 36)
  private String id;

  @Column(name = "record_key", nullable = false)
  private String recordKey;

  /** {@code jdbc} or {@code jpa}: how the row was written. */
  @Column(nullable = false, length = 8)
  private String writer;

  @Column(name = "worker_pid", nullable = false)
  private long workerPid;

  protected LedgerRow() {}

  LedgerRow(String id, String recordKey, String writer, long workerPid) {
    this.id = id;
    this.recordKey = recordKey;
    this.writer = writer;
    this.workerPid = workerPid;
  }

  /** The table, in SQL every database of the test accepts. */
  static String createTable() {
    return "CREATE TABLE IF NOT EXISTS "
        + TABLE
        + " (id VARCHAR(36) PRIMARY KEY, record_key VARCHAR(255) NOT NULL,"
        + " writer VARCHAR(8) NOT NULL, worker_pid BIGINT NOT NULL)";
  }
}
