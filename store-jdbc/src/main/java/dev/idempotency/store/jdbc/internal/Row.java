package dev.idempotency.store.jdbc.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One record as read from the table. State is {@code 'I'} in flight, {@code 'C'} complete, {@code
 * 'R'} released. The recovery point's and the response's columns are null until written. A class
 * rather than a record: it holds byte arrays, which a record's equals and hashCode would compare by
 * identity.
 */
final class Row {
  private final String scope;
  private final String key;
  private final char state;
  private final byte[] fingerprint;
  private final long fence;
  private final long generation;
  private final long leaseExpiresAt;
  private final long completedAt;
  private final @Nullable String rpName;
  private final byte @Nullable [] rpData;
  private final int status;
  private final byte @Nullable [] headers;
  private final byte @Nullable [] body;

  /** One argument per column of {@link #COLUMNS}, in its order; only {@link #read} calls it. */
  private Row(
      String scope,
      String key,
      char state,
      byte[] fingerprint,
      long fence,
      long generation,
      long leaseExpiresAt,
      long completedAt,
      @Nullable String rpName,
      byte @Nullable [] rpData,
      int status,
      byte @Nullable [] headers,
      byte @Nullable [] body) {
    this.scope = scope;
    this.key = key;
    this.state = state;
    this.fingerprint = fingerprint;
    this.fence = fence;
    this.generation = generation;
    this.leaseExpiresAt = leaseExpiresAt;
    this.completedAt = completedAt;
    this.rpName = rpName;
    this.rpData = rpData;
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /** The columns every read selects, in this order. */
  static final String COLUMNS =
      "scope, idem_key, state, fingerprint, fence, generation_fence, lease_expires_at_ns,"
          + " completed_at_ns, rp_name, rp_data, response_status, response_headers, response_body";

  static Row read(ResultSet rs, boolean scopeAsBytes) throws SQLException {
    String scope =
        scopeAsBytes
            ? new String(rs.getBytes("scope"), java.nio.charset.StandardCharsets.UTF_8)
            : rs.getString("scope");
    String state = rs.getString("state");
    long lease = rs.getLong("lease_expires_at_ns");
    long completed = rs.getLong("completed_at_ns");
    long fence = rs.getLong("fence");
    long generation = rs.getLong("generation_fence");
    if (rs.wasNull()) {
      generation = fence; // no takeover since the request began
    }
    return new Row(
        scope,
        rs.getString("idem_key"),
        state == null || state.isEmpty() ? '?' : state.charAt(0),
        rs.getBytes("fingerprint"),
        fence,
        generation,
        lease,
        completed,
        rs.getString("rp_name"),
        rs.getBytes("rp_data"),
        rs.getInt("response_status"),
        rs.getBytes("response_headers"),
        rs.getBytes("response_body"));
  }

  /**
   * The state letter: {@code 'I'}, {@code 'C'} or {@code 'R'} ({@code '?'} when the column was
   * empty).
   */
  char state() {
    return state;
  }

  long fence() {
    return fence;
  }

  /** The fence of the claim that began the request: the fence, unless a takeover came since. */
  long generation() {
    return generation;
  }

  Optional<RecoveryPoint> recoveryPoint() {
    return rpName == null
        ? Optional.empty()
        : Optional.of(RecoveryPoint.of(rpName, rpData == null ? new byte[0] : rpData));
  }

  StoredResponse response() {
    if (headers == null || body == null) {
      throw new KeyStoreException(
          "record " + scope + "/" + key + " is COMPLETE but has no stored response");
    }
    return ResponseCodec.decode(status, headers, body);
  }

  boolean sameFingerprint(byte[] other) {
    return Arrays.equals(fingerprint, other);
  }

  RecordSnapshot toSnapshot() {
    RecordId id = new RecordId(Scope.of(scope), IdempotencyKey.of(key));
    boolean complete = state == 'C';
    return new RecordSnapshot(
        id,
        complete ? KeyState.COMPLETE : KeyState.IN_FLIGHT,
        Fingerprint.of(fingerprint),
        FenceToken.of(fence),
        complete ? Optional.empty() : Optional.of(Nanos.toInstant(leaseExpiresAt)),
        recoveryPoint(),
        complete ? Optional.of(response()) : Optional.empty(),
        complete ? Optional.of(Nanos.toInstant(completedAt)) : Optional.empty());
  }

  /**
   * What a claim that did not win means for this row, judged at {@code dbNow}; {@code null} if the
   * row is claimable (released, past the window, or an expired lease with the same fingerprint),
   * which means it changed since the arbitrating statement looked: claim again.
   */
  @Nullable ClaimOutcome outcomeOfClaim(long dbNow, byte[] fp, long window) {
    switch (state) {
      case 'C' -> {
        if (completedAt <= dbNow - window) {
          return null;
        }
        if (!sameFingerprint(fp)) {
          return new ClaimOutcome.Mismatch(KeyState.COMPLETE);
        }
        return new ClaimOutcome.Completed(response(), Nanos.toInstant(completedAt));
      }
      case 'I' -> {
        if (!sameFingerprint(fp)) {
          return new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT);
        }
        if (leaseExpiresAt > dbNow) {
          return new ClaimOutcome.InFlight(Duration.ofNanos(leaseExpiresAt - dbNow));
        }
        return null;
      }
      default -> {
        return null;
      }
    }
  }

  /** The outcome of this row when the arbitrating statement claimed it for the caller. */
  ClaimOutcome claimedOutcome(boolean takeover) {
    return new ClaimOutcome.Claimed(
        FenceToken.of(fence),
        takeover ? recoveryPoint() : Optional.empty(),
        takeover,
        FenceToken.of(takeover ? generation : fence));
  }

  /** What the record, as found, means for {@code state} letters; for messages. */
  String describe() {
    return switch (state) {
      case 'I' -> "record is IN_FLIGHT with fence#" + fence;
      case 'C' -> "record is COMPLETE (fence#" + fence + ")";
      case 'R' -> "record was released (fence#" + fence + ")";
      default -> "record has unknown state '" + state + "'";
    };
  }
}
