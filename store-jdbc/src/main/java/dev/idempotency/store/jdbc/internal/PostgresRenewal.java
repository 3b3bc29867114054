package dev.idempotency.store.jdbc.internal;

import static dev.idempotency.store.jdbc.internal.Param.LEASE;
import static dev.idempotency.store.jdbc.internal.Param.RENEWED_FENCES;
import static dev.idempotency.store.jdbc.internal.Param.RENEWED_KEYS;
import static dev.idempotency.store.jdbc.internal.Param.RENEWED_SCOPES;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL's renewal of many leases: one {@code UPDATE … FROM unnest(scopes, keys, fences)}
 * joined on the primary key, whose {@code RETURNING} names the renewed rows. Three array parameters
 * whatever the number of leases: one statement text, no bind-parameter limit, and a plan that looks
 * each lease up by the primary key ({@code EXPLAIN}: a Nested Loop over the Function Scan of the
 * arrays and an Index Scan of the primary key, in the custom and the generic plan alike, on a table
 * of 100,000 in-flight rows), so a tick's cost is linear in its leases. Thread-safe.
 */
final class PostgresRenewal {
  /**
   * The most leases one statement names: it bounds the time one statement runs, and so what the
   * store's statement timeout must allow (measured: about 70 ms for 4096 leases on a table of
   * 100,000 in-flight rows, durable PostgreSQL on a 2-core machine).
   */
  static final int RENEWALS_PER_STATEMENT = 4096;

  private final SqlDialect sql;
  private final NamedSql renew;

  PostgresRenewal(SqlDialect sql) {
    this.sql = sql;
    String next = sql.now() + " + " + LEASE;
    // GREATEST: a renewal never moves a lease's end back, for example one that waited for a
    // connection while the owner's checkpoint, with a later now, committed
    this.renew =
        NamedSql.parse(
            """
            UPDATE {table} AS t SET lease_expires_at_ns = GREATEST(t.lease_expires_at_ns, {next}),
              retain_from_ns = GREATEST(t.retain_from_ns, {next}), row_version = t.row_version + 1
            FROM unnest(CAST({scopes} AS text[]), CAST({keys} AS text[]), CAST({fences} AS int8[]))
              AS v(scope, idem_key, fence)
            WHERE t.scope = v.scope AND t.idem_key = v.idem_key AND t.fence = v.fence
              AND t.state = 'I'
            RETURNING t.scope, t.idem_key, t.fence"""
                .replace("{table}", sql.names.table())
                .replace("{next}", next)
                .replace("{scopes}", RENEWED_SCOPES.toString())
                .replace("{keys}", RENEWED_KEYS.toString())
                .replace("{fences}", RENEWED_FENCES.toString()));
  }

  /**
   * See {@link Batches#renewAll}: the same contract, in one round trip per {@link
   * #RENEWALS_PER_STATEMENT} leases whether or not some are refused.
   *
   * @param p {@code :now} and {@code :lease}
   */
  Set<Integer> renewAll(Connection c, List<SqlDialect.OwnedLease> owned, ParamValues p)
      throws SQLException {
    Set<Integer> refused = new HashSet<>();
    for (int from = 0; from < owned.size(); from += RENEWALS_PER_STATEMENT) {
      List<SqlDialect.OwnedLease> chunk =
          owned.subList(from, Math.min(owned.size(), from + RENEWALS_PER_STATEMENT));
      p.renewed(chunk);
      Set<String> renewed = new HashSet<>(chunk.size() * 2);
      try (PreparedStatement ps = sql.prepare(renew, c, p);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          renewed.add(rs.getString(1) + "\u0000" + rs.getString(2) + "\u0000" + rs.getLong(3));
        }
      }
      if (renewed.size() == chunk.size()) {
        continue;
      }
      for (int i = 0; i < chunk.size(); i++) {
        SqlDialect.OwnedLease o = chunk.get(i);
        if (!renewed.contains(o.scope() + "\u0000" + o.key() + "\u0000" + o.fence())) {
          refused.add(from + i);
        }
      }
    }
    return refused;
  }
}
