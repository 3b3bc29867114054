-- idempotency-store-jdbc schema, version 1, PostgreSQL 15+.
-- One row per (scope, key). Times are epoch nanoseconds (BIGINT): read one with to_timestamp(col / 1e9).
-- Hand this file to Flyway or Liquibase as it is, or render it for another table name with
-- JdbcKeyStore.schemaDdl(Dialect.POSTGRESQL, "my_table").

-- Fences come from a sequence, so they keep increasing after a record is released or purged.
CREATE SEQUENCE IF NOT EXISTS idempotency_records_fence_seq AS BIGINT NO CYCLE;

CREATE TABLE IF NOT EXISTS idempotency_records (
  scope                VARCHAR(255) NOT NULL,
  idem_key             VARCHAR(255) NOT NULL,
  -- I in flight, C complete, R released (counts as absent; the row keeps the fence)
  state                CHAR(1)      NOT NULL,
  fingerprint          BYTEA        NOT NULL,
  fence                BIGINT       NOT NULL,
  -- the fence of the claim that began this request, once a takeover has drawn a newer fence (NULL: it is fence)
  generation_fence     BIGINT       NULL,
  -- set while in flight
  lease_expires_at_ns  BIGINT,
  -- set when complete
  completed_at_ns      BIGINT,
  -- when retention starts counting: the lease's end (in flight), the completion, or the release
  retain_from_ns       BIGINT       NOT NULL,
  -- the instant before which the reaper keeps the record, set by a person (KeyStore.extendRetention)
  keep_until_ns        BIGINT,
  -- F fresh claim, T takeover of an expired lease (the last claim)
  claim_kind           CHAR(1)      NOT NULL,
  -- bumped by every write
  row_version          BIGINT       NOT NULL,
  rp_name              VARCHAR(64),
  rp_data              BYTEA,
  response_status      INTEGER,
  response_headers     BYTEA,
  response_body        BYTEA,
  CONSTRAINT idempotency_records_pk PRIMARY KEY (scope, idem_key),
  CONSTRAINT idempotency_records_state_ck CHECK (state IN ('I', 'C', 'R'))
);

-- The reaper's batches and the completer's search for abandoned leases.
CREATE INDEX IF NOT EXISTS idempotency_records_retain_idx ON idempotency_records (state, retain_from_ns);
