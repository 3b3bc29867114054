package dev.idempotency.store.jdbc.internal;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The values one call binds to its statements' {@link Param}s, each set through a typed setter.
 * Made by {@link SqlDialect#values(Instant)}; one per SPI call, used by one thread. A statement
 * naming a parameter whose value was never set fails as it is bound, before it runs.
 */
public final class ParamValues {
  private final boolean scopeAsBytes;

  /**
   * The parameters whose value was set; a field of a parameter not in it is null or 0. The phase
   * clock's parameters start at 0, their value outside a phase: the fenced write then takes the
   * time its statement reads (see {@link H2Dialect#fencedNow()}).
   */
  private final EnumSet<Param> set = EnumSet.of(Param.PINNED, Param.ELAPSED, Param.WALL_NOW);

  private @Nullable RecordId id;
  private @Nullable String scope;
  private @Nullable String key;
  private byte @Nullable [] fingerprint;
  private long now;
  private long lease;
  private long window;
  private long retention;
  private int limit;
  private @Nullable FenceToken fence;
  private long keepUntil;
  private long nonce;
  private long pinned;
  private long elapsed;
  private long wallNow;
  private @Nullable String rpName;
  private byte @Nullable [] rpData;
  private int status;
  private byte @Nullable [] headers;
  private byte @Nullable [] body;
  private @Nullable List<SqlDialect.OwnedLease> renewed;
  private @Nullable RecordId after;

  ParamValues(boolean scopeAsBytes, long now) {
    this.scopeAsBytes = scopeAsBytes;
    this.now = now;
    set.add(Param.NOW);
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
    set.add(Param.SCOPE);
    set.add(Param.KEY);
    return this;
  }

  /** {@link Param#SCOPE} alone: the scope a listing is restricted to. */
  ParamValues scope(String scope) {
    this.scope = scope;
    set.add(Param.SCOPE);
    return this;
  }

  /** {@link Param#AFTER_SCOPE} and {@link Param#AFTER_KEY}: where a listing's page starts. */
  ParamValues after(RecordId last) {
    this.after = last;
    set.add(Param.AFTER_SCOPE);
    set.add(Param.AFTER_KEY);
    return this;
  }

  /** {@link Param#FINGERPRINT}. */
  public ParamValues fingerprint(byte[] fingerprint) {
    this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
    set.add(Param.FINGERPRINT);
    return this;
  }

  /** {@link Param#LEASE}, nanoseconds. */
  public ParamValues lease(long nanos) {
    this.lease = nanos;
    set.add(Param.LEASE);
    return this;
  }

  /** {@link Param#WINDOW}, nanoseconds. */
  public ParamValues window(long nanos) {
    this.window = nanos;
    set.add(Param.WINDOW);
    return this;
  }

  /** {@link Param#RETENTION}, nanoseconds. */
  public ParamValues retention(long nanos) {
    this.retention = nanos;
    set.add(Param.RETENTION);
    return this;
  }

  /** {@link Param#LIMIT}. */
  public ParamValues limit(int limit) {
    this.limit = limit;
    set.add(Param.LIMIT);
    return this;
  }

  /** {@link Param#KEEP_UNTIL}, epoch nanoseconds. */
  public ParamValues keepUntil(long nanos) {
    this.keepUntil = nanos;
    set.add(Param.KEEP_UNTIL);
    return this;
  }

  /** {@link Param#FENCE}: the owner's fence, which every fenced write checks. */
  public ParamValues fence(FenceToken fence) {
    this.fence = Objects.requireNonNull(fence, "fence");
    set.add(Param.FENCE);
    return this;
  }

  /** {@link Param#NONCE}. */
  ParamValues nonce(long nonce) {
    this.nonce = nonce;
    set.add(Param.NONCE);
    return this;
  }

  /**
   * {@link Param#PINNED}, {@link Param#ELAPSED} and {@link Param#WALL_NOW} for a phase's fenced
   * write, from the clock pinned as the phase opened; read now, just before the write.
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
    set.add(Param.RP_NAME);
    set.add(Param.RP_DATA);
    return this;
  }

  /** {@link Param#STATUS}, {@link Param#HEADERS} and {@link Param#BODY}. */
  public ParamValues response(StoredResponse response) {
    Objects.requireNonNull(response, "response");
    this.status = response.status();
    this.headers = ResponseCodec.encodeHeaders(response);
    this.body = response.body();
    set.add(Param.STATUS);
    set.add(Param.HEADERS);
    set.add(Param.BODY);
    return this;
  }

  /** The bytes of the response set by {@link #response} (headers and body), 0 without one. */
  long responseBytes() {
    return (headers == null ? 0L : headers.length) + (body == null ? 0L : body.length);
  }

  /**
   * The list parameters {@code RENEWED_*}: element {@code i} of each is lease {@code i} of {@code
   * leases}; and the array parameters, which hold them all.
   */
  ParamValues renewed(List<SqlDialect.OwnedLease> leases) {
    this.renewed = leases;
    set.add(Param.RENEWED_SCOPE);
    set.add(Param.RENEWED_KEY);
    set.add(Param.RENEWED_FENCE);
    set.add(Param.RENEWED_SCOPES);
    set.add(Param.RENEWED_KEYS);
    set.add(Param.RENEWED_FENCES);
    return this;
  }

  /** The record set by {@link #record}, for messages. */
  RecordId recordId() {
    return Objects.requireNonNull(id, "the record is set (record) before its statements run");
  }

  /** The fence set by {@link #fence}, which every fenced write's values hold. */
  FenceToken fenceToken() {
    return Objects.requireNonNull(fence, "a fenced write's values hold the owner's fence");
  }

  /** The fingerprint set by {@link #fingerprint(byte[])}, which a claim's values hold. */
  byte[] fingerprint() {
    return Objects.requireNonNull(fingerprint, "a claim's values hold the request's fingerprint");
  }

  long window() {
    return window;
  }

  int limit() {
    return limit;
  }

  /**
   * Binds the value of {@code param} (element {@code index} of a list parameter) at {@code
   * position}.
   *
   * @throws IllegalStateException if its value was never set
   */
  void bind(PreparedStatement ps, int position, Param param, int index) throws SQLException {
    if (!set.contains(param)) {
      throw new IllegalStateException("no value for parameter " + param);
    }
    switch (param) {
      case SCOPE -> bindScope(ps, position, Objects.requireNonNull(scope, "set with SCOPE"));
      case KEY -> ps.setString(position, key);
      case FINGERPRINT -> ps.setBytes(position, fingerprint);
      case NOW -> ps.setLong(position, now);
      case LEASE -> ps.setLong(position, lease);
      case WINDOW -> ps.setLong(position, window);
      case RETENTION -> ps.setLong(position, retention);
      case LIMIT -> ps.setInt(position, limit);
      case FENCE -> ps.setLong(position, fenceToken().value());
      case KEEP_UNTIL -> ps.setLong(position, keepUntil);
      case NONCE -> ps.setLong(position, nonce);
      case PINNED -> ps.setLong(position, pinned);
      case ELAPSED -> ps.setLong(position, elapsed);
      case WALL_NOW -> ps.setLong(position, wallNow);
      case RP_NAME -> ps.setString(position, rpName);
      case RP_DATA -> ps.setBytes(position, rpData);
      case STATUS -> ps.setInt(position, status);
      case HEADERS -> ps.setBytes(position, headers);
      case BODY -> ps.setBytes(position, body);
      case AFTER_SCOPE ->
          bindScope(ps, position, Objects.requireNonNull(after, "set with AFTER").scope().value());
      case AFTER_KEY ->
          ps.setString(position, Objects.requireNonNull(after, "set with AFTER").key().value());
      case RENEWED_SCOPE -> bindScope(ps, position, renewed(index).scope());
      case RENEWED_KEY -> ps.setString(position, renewed(index).key());
      case RENEWED_FENCE -> ps.setLong(position, renewed(index).fence());
      case RENEWED_SCOPES -> ps.setArray(position, renewedArray(ps, "text", Param.RENEWED_SCOPES));
      case RENEWED_KEYS -> ps.setArray(position, renewedArray(ps, "text", Param.RENEWED_KEYS));
      case RENEWED_FENCES -> ps.setArray(position, renewedArray(ps, "int8", Param.RENEWED_FENCES));
      default -> throw new IllegalStateException("no binding for parameter " + param);
    }
  }

  private SqlDialect.OwnedLease renewed(int index) {
    return Objects.requireNonNull(renewed, "set with the RENEWED_* parameters").get(index);
  }

  /** The SQL array of {@code type} of one field of every renewed lease. */
  private Array renewedArray(PreparedStatement ps, String type, Param param) throws SQLException {
    List<SqlDialect.OwnedLease> leases =
        Objects.requireNonNull(renewed, "set with the RENEWED_* parameters");
    Object[] elements = new Object[leases.size()];
    for (int i = 0; i < elements.length; i++) {
      SqlDialect.OwnedLease o = leases.get(i);
      elements[i] =
          switch (param) {
            case RENEWED_SCOPES -> o.scope();
            case RENEWED_KEYS -> o.key();
            default -> o.fence();
          };
    }
    return ps.getConnection().createArrayOf(type, elements);
  }

  private void bindScope(PreparedStatement ps, int position, String scope) throws SQLException {
    if (scopeAsBytes) {
      ps.setBytes(position, scope.getBytes(StandardCharsets.UTF_8));
    } else {
      ps.setString(position, scope);
    }
  }
}
