-- idempotency-store-jdbc schema, version 1, H2 2.x (any compatibility mode; not with IGNORECASE=TRUE).
-- One row per (scope, key). Times are epoch nanoseconds (BIGINT).
-- Hand this file to Flyway or Liquibase as it is, or render it for another table name with
-- JdbcKeyStore.schemaDdl(Dialect.H2, "my_table").

CREATE SEQUENCE IF NOT EXISTS idempotency_records_fence_seq;

CREATE TABLE IF NOT EXISTS idempotency_records (
  scope                VARCHAR(255) NOT NULL,
  idem_key             VARCHAR(255) NOT NULL,
  -- I in flight, C complete, R released (counts as absent; the row keeps the fence)
  state                CHAR(1)      NOT NULL,
  fingerprint          VARBINARY(64) NOT NULL,
  fence                BIGINT       NOT NULL,
  -- the fence of the claim that began this request, once a takeover has drawn a newer fence (NULL: it is fence)
  generation_fence     BIGINT,
  lease_expires_at_ns  BIGINT,
  completed_at_ns      BIGINT,
  retain_from_ns       BIGINT       NOT NULL,
  -- the instant before which the reaper keeps the record, set by a person (KeyStore.extendRetention)
  keep_until_ns        BIGINT,
  -- what the last claim statement decided: F fresh, T takeover, N nothing
  claim_kind           CHAR(1)      NOT NULL,
  row_version          BIGINT       NOT NULL,
  rp_name              VARCHAR(64),
  rp_data              VARBINARY(4096),
  response_status      INTEGER,
  response_headers     VARBINARY,
  response_body        BLOB,
  CONSTRAINT idempotency_records_pk PRIMARY KEY (scope, idem_key),
  -- Spelled as a CASE, not state IN (...): H2 2.4.240 evaluates a check's IN list (or ORs that it
  -- folds into one) in the session that created the table, and once that connection is closed every
  -- insert fails with "Check constraint invalid" (H2 issues 4292, 4308).
  CONSTRAINT idempotency_records_state_ck
    CHECK (CASE state WHEN 'I' THEN TRUE WHEN 'C' THEN TRUE WHEN 'R' THEN TRUE ELSE FALSE END)
);

CREATE INDEX IF NOT EXISTS idempotency_records_retain_idx ON idempotency_records (state, retain_from_ns);
