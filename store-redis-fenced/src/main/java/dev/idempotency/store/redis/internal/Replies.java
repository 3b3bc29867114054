package dev.idempotency.store.redis.internal;

import static dev.idempotency.store.redis.internal.RedisCalls.bytes;
import static dev.idempotency.store.redis.internal.RedisCalls.number;
import static dev.idempotency.store.redis.internal.RedisCalls.text;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Turns the scripts' replies and the record hash into the SPI's types. Stateless. */
public final class Replies {
  /** The record hash's fields, in the order {@link #snapshot} reads them and records.lua reads. */
  public static final List<String> FIELDS =
      List.of("s", "fp", "f", "g", "l", "rp", "rd", "c", "st", "h", "b");

  private Replies() {}

  /** The outcome of {@link Script#CLAIM}'s reply. */
  public static ClaimOutcome claimOutcome(List<Object> reply) {
    String kind = text(reply, 0);
    return switch (kind) {
      case "N" -> claimed(reply);
      case "B" -> new ClaimOutcome.InFlight(Duration.of(number(reply, 1), ChronoUnit.MICROS));
      case "C" ->
          new ClaimOutcome.Completed(
              response(number(reply, 1), bytes(reply, 2), bytes(reply, 3)),
              Micros.toInstant(number(reply, 4)));
      case "M" ->
          new ClaimOutcome.Mismatch(
              "C".equals(text(reply, 1)) ? KeyState.COMPLETE : KeyState.IN_FLIGHT);
      default ->
          throw new KeyStoreException("unexpected claim reply from the Redis store: " + kind);
    };
  }

  /** {@code {'N', fence, generation, takeover 0/1 [, point name, point data]}}. */
  private static ClaimOutcome.Claimed claimed(List<Object> reply) {
    Optional<RecoveryPoint> resumeFrom =
        reply.size() > 4
            ? Optional.of(RecoveryPoint.of(text(reply, 4), bytes(reply, 5)))
            : Optional.empty();
    return new ClaimOutcome.Claimed(
        FenceToken.of(number(reply, 1)),
        resumeFrom,
        number(reply, 3) == 1,
        FenceToken.of(number(reply, 2)));
  }

  /**
   * The snapshot of a record hash read as {@link #FIELDS}; empty when there is no record.
   *
   * @param values the fields' values, null where a field is absent
   */
  public static Optional<RecordSnapshot> snapshot(RecordId id, List<byte @Nullable []> values) {
    byte[] state = values.get(0);
    if (state == null) {
      return Optional.empty();
    }
    boolean complete = "C".equals(ascii(state));
    byte[] rpName = values.get(5);
    byte[] rpData = values.get(6);
    Optional<RecoveryPoint> point =
        rpName == null
            ? Optional.empty()
            : Optional.of(RecoveryPoint.of(ascii(rpName), rpData == null ? new byte[0] : rpData));
    return Optional.of(
        new RecordSnapshot(
            id,
            complete ? KeyState.COMPLETE : KeyState.IN_FLIGHT,
            Fingerprint.of(required(values, 1)),
            FenceToken.of(decimal(required(values, 2))),
            complete
                ? Optional.empty()
                : Optional.of(Micros.toInstant(decimal(required(values, 4)))),
            point,
            complete
                ? Optional.of(
                    response(
                        decimal(required(values, 8)), required(values, 9), required(values, 10)))
                : Optional.empty(),
            complete
                ? Optional.of(Micros.toInstant(decimal(required(values, 7))))
                : Optional.empty()));
  }

  /**
   * The snapshot of one record read by {@link Script#RECORDS} ({@link #FIELDS}, nil where absent);
   * empty when there is no record.
   */
  public static Optional<RecordSnapshot> snapshot(RecordId id, Object row) {
    List<Object> fields = RedisCalls.list(row);
    List<byte @Nullable []> values = new ArrayList<>(fields.size());
    for (Object v : fields) {
      values.add(v instanceof byte[] b ? b : null);
    }
    return snapshot(id, values);
  }

  private static StoredResponse response(long status, byte[] headers, byte[] body) {
    return StoredResponse.of((int) status, HeaderLines.decode(headers), body);
  }

  private static byte[] required(List<byte @Nullable []> values, int i) {
    byte[] v = values.get(i);
    if (v == null) {
      throw new KeyStoreException(
          "a record of the Redis store lacks its field \""
              + FIELDS.get(i)
              + "\"; is another application writing under the store's key prefix?");
    }
    return v;
  }

  private static long decimal(byte[] b) {
    try {
      return Long.parseLong(ascii(b));
    } catch (NumberFormatException e) {
      throw new KeyStoreException("a record of the Redis store holds a malformed number", e);
    }
  }

  private static String ascii(byte[] b) {
    return new String(b, StandardCharsets.US_ASCII);
  }
}
