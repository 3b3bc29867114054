package dev.idempotency.store.jdbc.internal;

import static dev.idempotency.store.jdbc.internal.Param.AFTER_KEY;
import static dev.idempotency.store.jdbc.internal.Param.AFTER_SCOPE;
import static dev.idempotency.store.jdbc.internal.Param.SCOPE;

import dev.idempotency.RecordId;
import dev.idempotency.spi.PageCursor;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The listing of records by selection ({@link dev.idempotency.spi.KeyStore#list}): keyset paging on
 * the primary key. Each page is one plain read, {@code WHERE} the selection's state and lease
 * predicate, the scope if one is asked for, and {@code (scope, idem_key)} after the cursor's
 * record, {@code ORDER BY scope, idem_key}, one row more than the page so that the last page says
 * it is the last. The cursor is the page's last record ({@link PageCursor#afterRecord}), so a page
 * costs a range of the primary key whatever the table's size, and records that came or went between
 * two pages move no other record's position. Records come in the primary key's order: the scope's
 * collation (PostgreSQL, H2) or its UTF-8 bytes (MySQL, MariaDB), then the key. Released rows
 * (state {@code R}) are never listed. Thread-safe.
 */
final class Listing {
  private final SqlDialect sql;
  private final Map<String, NamedSql> statements = new ConcurrentHashMap<>();

  Listing(SqlDialect sql) {
    this.sql = sql;
  }

  /** One page of {@code query}; {@code p} holds {@code :now}. */
  RecordPage list(Connection c, RecordQuery query, ParamValues p) throws SQLException {
    Optional<RecordId> after = query.after().map(PageCursor::lastRecord);
    p.limit(query.limit() + 1);
    query.scope().ifPresent(s -> p.scope(s.value()));
    after.ifPresent(p::after);
    String shape =
        query.selection()
            + "/"
            + query.scope().isPresent()
            + "/"
            + after.isPresent()
            + sql.limitClause(p.limit());
    NamedSql select = statements.computeIfAbsent(shape, k -> statement(query, after.isPresent()));
    List<RecordSnapshot> rows = new ArrayList<>();
    try (PreparedStatement ps = sql.prepare(select, c, p);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(Row.read(rs, sql.scopeAsBytes()).toSnapshot());
      }
    }
    if (rows.size() <= query.limit()) {
      return new RecordPage(rows, Optional.empty());
    }
    List<RecordSnapshot> page = rows.subList(0, query.limit());
    return new RecordPage(
        page, Optional.of(PageCursor.afterRecord(page.get(page.size() - 1).id())));
  }

  private NamedSql statement(RecordQuery query, boolean hasCursor) {
    StringBuilder where = new StringBuilder(predicate(query.selection()));
    if (query.scope().isPresent()) {
      where.append(" AND scope = ").append(SCOPE);
    }
    if (hasCursor) {
      where
          .append(" AND (scope > ")
          .append(AFTER_SCOPE)
          .append(" OR (scope = ")
          .append(AFTER_SCOPE)
          .append(" AND idem_key > ")
          .append(AFTER_KEY)
          .append("))");
    }
    return NamedSql.parse(
        "SELECT "
            + Row.COLUMNS
            + " FROM "
            + sql.names.table()
            + " WHERE "
            + where
            + " ORDER BY scope, idem_key"
            + sql.limitClause(query.limit() + 1));
  }

  /**
   * The state and lease condition of {@code selection}, by the store's clock. An in-flight row's
   * {@code retain_from_ns} is its lease's end (every write sets both), so the condition is on the
   * {@code (state, retain_from_ns)} index, as {@code findAbandoned}'s is: the optimizer may read
   * the selection through it, or the primary key in order, whichever it judges cheaper.
   */
  private String predicate(RecordSelection selection) {
    String expired = "state = 'I' AND retain_from_ns <= " + sql.now();
    return switch (selection) {
      case ABANDONED -> expired;
      case ABANDONED_WITH_RECOVERY_POINT -> expired + " AND rp_name IS NOT NULL";
      case ABANDONED_WITHOUT_RECOVERY_POINT -> expired + " AND rp_name IS NULL";
      case LIVE -> "state = 'I' AND retain_from_ns > " + sql.now();
      case COMPLETE -> "state = 'C'";
    };
  }
}
