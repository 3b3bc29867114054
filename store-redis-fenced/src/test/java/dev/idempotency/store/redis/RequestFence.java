package dev.idempotency.store.redis;

import dev.idempotency.FenceToken;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The request's fence row of docs/stores-redis.md, as the tests' business databases (H2) keep it:
 * {@code request_fence (request_key PRIMARY KEY, fence)}. Stateless.
 */
final class RequestFence {
  private RequestFence() {}

  /**
   * Raises the request's fence row to {@code fence} unless a newer owner's fence is there ({@code
   * <=}: the same owner may write again); in the caller's transaction.
   *
   * @return false when a newer owner holds the request: roll back and stop
   */
  static boolean raise(Connection c, String request, FenceToken fence) throws SQLException {
    try (PreparedStatement raise =
        c.prepareStatement(
            "MERGE INTO request_fence f USING (VALUES (CAST(? AS VARCHAR), CAST(? AS BIGINT)))"
                + " v(k, fence) ON f.request_key = v.k"
                + " WHEN MATCHED AND f.fence <= v.fence THEN UPDATE SET fence = v.fence"
                + " WHEN NOT MATCHED THEN INSERT VALUES (v.k, v.fence)")) {
      raise.setString(1, request);
      raise.setLong(2, fence.value());
      return raise.executeUpdate() == 1;
    }
  }
}
