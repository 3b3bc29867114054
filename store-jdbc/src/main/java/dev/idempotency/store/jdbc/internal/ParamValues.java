package dev.idempotency.store.jdbc.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The values one call binds to its statements' {@link Param}s, each set through a typed setter. Made by
 * {@link SqlDialect#values(Instant)}; one per SPI call, used by one thread. A statement naming a parameter whose
 * value was never set fails as it is bound, before it runs.
 */
public final class ParamValues {
  /**
   * The phase clock's parameters start at 0, their value outside a phase: the fenced write then takes the time its
   * statement reads (see {@link H2Dialect#fencedNow()}).
   */
  private static final long SET_FROM_THE_START = Param.PINNED.bit | Param.ELAPSED.bit | Param.WALL_NOW.bit;

  private final boolean scopeAsBytes;
  private long set = SET_FROM_THE_START;
  private RecordId id;
  private String scope;
  private String key;
  private byte[] fingerprint;
  private long now;
  private long lease;
  private long window;
  private long retention;
  private int limit;
  private FenceToken fence;
  private long nonce;
  private long pinned;
  private long elapsed;
  private long wallNow;
  private String rpName;
  private byte[] rpData;
  private int status;
  private byte[] headers;
  private byte[] body;
  private List<SqlDialect.OwnedLease> renewed;

  ParamValues(boolean scopeAsBytes, long now) {
    this.scopeAsBytes = scopeAsBytes;
    this.now = now;
    this.set |= Param.NOW.bit;
  }

  /** The record the statements are about: {@link Param#SCOPE} and {@link Param#KEY}. */
  public ParamValues record(RecordId id) {
    this.id = Objects.requireNonNull(id, "id");
    return recordKey(id.scope().value(), id.key().value());
  }

  /** {@link Param#SCOPE} and {@link Param#KEY} as read from a row. */
  ParamValues recordKey(String scope, String key) {
    this.scope = scope;
    this.key = key;
    set |= Param.SCOPE.bit | Param.KEY.bit;
    return this;
  }

  /** {@link Param#FINGERPRINT}. */
  public ParamValues fingerprint(byte[] fingerprint) {
    this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
    set |= Param.FINGERPRINT.bit;
    return this;
  }

  /** {@link Param#LEASE}, nanoseconds. */
  public ParamValues lease(long nanos) {
    this.lease = nanos;
    set |= Param.LEASE.bit;
    return this;
  }

  /** {@link Param#WINDOW}, nanoseconds. */
  public ParamValues window(long nanos) {
    this.window = nanos;
    set |= Param.WINDOW.bit;
    return this;
  }

  /** {@link Param#RETENTION}, nanoseconds. */
  public ParamValues retention(long nanos) {
    this.retention = nanos;
    set |= Param.RETENTION.bit;
    return this;
  }

  /** {@link Param#LIMIT}. */
  public ParamValues limit(int limit) {
    this.limit = limit;
    set |= Param.LIMIT.bit;
    return this;
  }

  /** {@link Param#FENCE}: the owner's fence, which every fenced write checks. */
  public ParamValues fence(FenceToken fence) {
    this.fence = Objects.requireNonNull(fence, "fence");
    set |= Param.FENCE.bit;
    return this;
  }

  /** {@link Param#NONCE}. */
  ParamValues nonce(long nonce) {
    this.nonce = nonce;
    set |= Param.NONCE.bit;
    return this;
  }

  /**
   * {@link Param#PINNED}, {@link Param#ELAPSED} and {@link Param#WALL_NOW} for a phase's fenced write, from the
   * clock pinned as the phase opened; read now, just before the write.
   */
  public ParamValues phaseClock(SqlDialect.PinnedClock clock) {
    this.pinned = clock.databaseNanos();
    this.elapsed = System.nanoTime() - clock.nanoTime();
    this.wallNow = Nanos.of(Instant.now());
    return this;
  }

  /** {@link Param#RP_NAME} and {@link Param#RP_DATA}. */
  public ParamValues recoveryPoint(RecoveryPoint point) {
    Objects.requireNonNull(point, "point");
    this.rpName = point.name();
    this.rpData = point.data();
    set |= Param.RP_NAME.bit | Param.RP_DATA.bit;
    return this;
  }

  /** {@link Param#STATUS}, {@link Param#HEADERS} and {@link Param#BODY}. */
  public ParamValues response(StoredResponse response) {
    Objects.requireNonNull(response, "response");
    this.status = response.status();
    this.headers = ResponseCodec.encodeHeaders(response);
    this.body = response.body();
    set |= Param.STATUS.bit | Param.HEADERS.bit | Param.BODY.bit;
    return this;
  }

  /** The list parameters {@code RENEWED_*}: element {@code i} of each is lease {@code i} of {@code leases}. */
  ParamValues renewed(List<SqlDialect.OwnedLease> leases) {
    this.renewed = leases;
    set |= Param.RENEWED_SCOPE.bit | Param.RENEWED_KEY.bit | Param.RENEWED_FENCE.bit;
    return this;
  }

  /** The record set by {@link #record}, for messages. */
  RecordId recordId() {
    return id;
  }

  FenceToken fenceToken() {
    return fence;
  }

  byte[] fingerprint() {
    return fingerprint;
  }

  long window() {
    return window;
  }

  int limit() {
    return limit;
  }

  /**
   * Binds the value of {@code param} (element {@code index} of a list parameter) at {@code position}.
   *
   * @throws IllegalStateException if its value was never set
   */
  void bind(PreparedStatement ps, int position, Param param, int index) throws SQLException {
    if ((set & param.bit) == 0) {
      throw new IllegalStateException("no value for parameter " + param);
    }
    switch (param) {
      case SCOPE -> bindScope(ps, position, scope);
      case KEY -> ps.setString(position, key);
      case FINGERPRINT -> ps.setBytes(position, fingerprint);
      case NOW -> ps.setLong(position, now);
      case LEASE -> ps.setLong(position, lease);
      case WINDOW -> ps.setLong(position, window);
      case RETENTION -> ps.setLong(position, retention);
      case LIMIT -> ps.setInt(position, limit);
      case FENCE -> ps.setLong(position, fence.value());
      case NONCE -> ps.setLong(position, nonce);
      case PINNED -> ps.setLong(position, pinned);
      case ELAPSED -> ps.setLong(position, elapsed);
      case WALL_NOW -> ps.setLong(position, wallNow);
      case RP_NAME -> ps.setString(position, rpName);
      case RP_DATA -> ps.setBytes(position, rpData);
      case STATUS -> ps.setInt(position, status);
      case HEADERS -> ps.setBytes(position, headers);
      case BODY -> ps.setBytes(position, body);
      case RENEWED_SCOPE -> bindScope(ps, position, renewed.get(index).scope());
      case RENEWED_KEY -> ps.setString(position, renewed.get(index).key());
      case RENEWED_FENCE -> ps.setLong(position, renewed.get(index).fence());
      default -> throw new IllegalStateException("no binding for parameter " + param);
    }
  }

  private void bindScope(PreparedStatement ps, int position, String scope) throws SQLException {
    if (scopeAsBytes) {
      ps.setBytes(position, scope.getBytes(StandardCharsets.UTF_8));
    } else {
      ps.setString(position, scope);
    }
  }
}
