/**
 * The JDBC key store: {@link dev.idempotency.store.jdbc.JdbcKeyStore} and its {@link
 * dev.idempotency.store.jdbc.JdbcKeyStoreBuilder}, the supported {@link
 * dev.idempotency.store.jdbc.Dialect}s and the {@link dev.idempotency.store.jdbc.ClockSource} that
 * decides whose clock judges leases and replay windows.
 *
 * <p>The schema ships as plain, versioned DDL per dialect under {@code
 * dev/idempotency/store/jdbc/schema/<dialect>/V1__idempotency_records.sql}; see {@code
 * docs/stores-jdbc.md} for the claim statement of each dialect, the isolation levels and the
 * transaction API.
 */
@NullMarked
package dev.idempotency.store.jdbc;

import org.jspecify.annotations.NullMarked;
