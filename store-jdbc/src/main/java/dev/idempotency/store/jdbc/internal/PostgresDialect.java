package dev.idempotency.store.jdbc.internal;

import dev.idempotency.spi.ClaimOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL: {@code INSERT … ON CONFLICT DO UPDATE … WHERE <claimable> RETURNING} in a CTE, with a fallback
 * {@code SELECT} of the existing row in the same statement. The fallback reads the statement's snapshot, so a row
 * inserted by a concurrent transaction after it began is invisible to it although {@code ON CONFLICT} saw it:
 * then the statement returns nothing and the caller reads again (the one case of two round trips).
 */
final class PostgresDialect extends SqlDialect {
  private final NamedSql claim;
  private final Map<String, NamedSql> deleteExpired = new java.util.concurrent.ConcurrentHashMap<>();

  PostgresDialect(Names names, boolean serverClock) {
    super(names, serverClock);
    String t = names.table();
    String n = now();
    String seq = "nextval('" + names.sequence() + "')";
    String claimable = "r.state = 'R' OR (r.state = 'C' AND r.completed_at_ns <= " + n + " - :window)"
        + " OR (r.state = 'I' AND r.lease_expires_at_ns <= " + n + " AND r.fingerprint = EXCLUDED.fingerprint)";
    claim = NamedSql.parse("WITH claimed AS ("
        + "INSERT INTO " + t + " AS r (scope, idem_key, state, fingerprint, fence, lease_expires_at_ns, completed_at_ns,"
        + " retain_from_ns, claim_kind, row_version)"
        + " VALUES (:scope, :key, 'I', :fp, " + seq + ", " + n + " + :lease, NULL, " + n + " + :lease, 'F', 1)"
        + " ON CONFLICT (scope, idem_key) DO UPDATE SET state = 'I', fingerprint = EXCLUDED.fingerprint,"
        // nextval is drawn under the row lock, so it is greater than every fence issued before; GREATEST guards
        // against a sequence that was reset by hand
        + " fence = GREATEST(" + seq + ", r.fence + 1),"
        + " lease_expires_at_ns = EXCLUDED.lease_expires_at_ns, completed_at_ns = NULL,"
        + " retain_from_ns = EXCLUDED.retain_from_ns,"
        + " claim_kind = CASE WHEN r.state = 'I' THEN 'T' ELSE 'F' END, row_version = r.row_version + 1,"
        + " rp_name = CASE WHEN r.state = 'I' THEN r.rp_name END, rp_data = CASE WHEN r.state = 'I' THEN r.rp_data END,"
        + " response_status = NULL, response_headers = NULL, response_body = NULL"
        + " WHERE " + claimable
        + " RETURNING " + Row.COLUMNS + ", claim_kind)"
        + " SELECT " + Row.COLUMNS + ", claim_kind, TRUE AS won, " + n + " AS db_now FROM claimed"
        + " UNION ALL"
        + " SELECT " + Row.COLUMNS + ", claim_kind, FALSE, " + n + " FROM " + t
        + " WHERE scope = :scope AND idem_key = :key AND NOT EXISTS (SELECT 1 FROM claimed)");
  }

  @Override
  String clockExpression() {
    return "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000000 AS BIGINT)";
  }

  @Override
  NamedSql deleteExpiredSql(String states) {
    String t = names.table();
    String n = now();
    // key-based and SKIP LOCKED: the batch never waits for, nor blocks, a claim of a row it selected
    return deleteExpired.computeIfAbsent(states, s -> NamedSql.parse("DELETE FROM " + t
        + " WHERE (scope, idem_key) IN (SELECT scope, idem_key FROM " + t + " WHERE " + s + " AND retain_from_ns <= "
        + n + " - :retention LIMIT :limit FOR UPDATE SKIP LOCKED) AND retain_from_ns <= " + n + " - :retention"));
  }

  @Override
  public List<String> validationStatements() {
    List<String> l = super.validationStatements();
    l.add("SELECT last_value FROM " + names.sequence());
    return l;
  }

  @Override
  ClaimOutcome claimOnce(Connection c, Map<String, Object> p, byte[] fp, long window) throws SQLException {
    try (PreparedStatement ps = claim.prepare(c, p); ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null; // a concurrent insert the snapshot cannot see: read again
      }
      Row row = Row.read(rs, false);
      if (rs.getBoolean("won")) {
        return claimed(row, "T".equals(rs.getString("claim_kind")));
      }
      return interpret(row, rs.getLong("db_now"), fp, window);
    }
  }
}
