-- idempotency-store-jdbc schema, version 1, MySQL 8 / MariaDB 10.11 (InnoDB).
-- One row per (scope, key). Times are epoch nanoseconds (BIGINT): read one with FROM_UNIXTIME(col / 1e9).
-- Hand this file to Flyway or Liquibase as it is, or render it for another table name with
-- JdbcKeyStore.schemaDdl(Dialect.MYSQL, "my_table").
--
-- scope is stored as its UTF-8 bytes: a binary, no-pad comparison, so that scopes differing in case or in
-- trailing spaces never collide (the _bin collations of MariaDB pad). Keys are printable ASCII, compared
-- case-sensitively (ascii_bin).

CREATE TABLE IF NOT EXISTS idempotency_records (
  scope                VARBINARY(1020) NOT NULL,
  idem_key             VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  -- I in flight, C complete, R released (counts as absent; the row keeps the fence)
  state                CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  fingerprint          VARBINARY(64) NOT NULL,
  -- GREATEST(previous fence + 1, database clock in microseconds): MySQL 8 has no sequences
  fence                BIGINT NOT NULL,
  -- the fence of the claim that began this request, once a takeover has drawn a newer fence (NULL: it is fence)
  generation_fence     BIGINT NULL,
  lease_expires_at_ns  BIGINT NULL,
  completed_at_ns      BIGINT NULL,
  -- when retention starts counting: the lease's end (in flight), the completion, or the release
  retain_from_ns       BIGINT NOT NULL,
  -- the instant before which the reaper keeps the record, set by a person (KeyStore.extendRetention)
  keep_until_ns        BIGINT,
  claim_kind           CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  -- the random marker of the last claim statement: +n claimed by it, -n not
  claim_nonce          BIGINT NOT NULL,
  row_version          BIGINT NOT NULL,
  rp_name              VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  rp_data              VARBINARY(4096) NULL,
  response_status      INT NULL,
  response_headers     MEDIUMBLOB NULL,
  response_body        LONGBLOB NULL,
  PRIMARY KEY (scope, idem_key),
  KEY idempotency_records_retain_idx (state, retain_from_ns)
) ENGINE = InnoDB;
