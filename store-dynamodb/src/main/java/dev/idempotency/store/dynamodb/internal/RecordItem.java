package dev.idempotency.store.dynamodb.internal;

import static dev.idempotency.store.dynamodb.internal.ItemLayout.*;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One record's item as read back: decodes what the store wrote, and decides what a claim that found
 * it returns. A value missing or of the wrong type is a {@link KeyStoreException} naming the
 * attribute (the item was written by something else).
 */
public final class RecordItem {
  private final Map<String, AttributeValue> item;

  private RecordItem(Map<String, AttributeValue> item) {
    this.item = item;
  }

  /** The record in {@code item}; empty when there is no item or it was released. */
  public static Optional<RecordItem> present(@Nullable Map<String, AttributeValue> item) {
    if (item == null || item.isEmpty()) {
      return Optional.empty();
    }
    RecordItem r = new RecordItem(item);
    return r.state().equals(RELEASED) ? Optional.empty() : Optional.of(r);
  }

  /** The item, whatever its state; {@code item} must not be empty. */
  public static RecordItem of(Map<String, AttributeValue> item) {
    return new RecordItem(item);
  }

  /** The state attribute: {@code I}, {@code C} or {@code R}. */
  public String state() {
    String s = string(STATE);
    if (!s.equals(IN_FLIGHT) && !s.equals(COMPLETE) && !s.equals(RELEASED)) {
      throw corrupt(STATE, "state " + s);
    }
    return s;
  }

  /** The current fence. */
  public long fence() {
    return number(FENCE);
  }

  /** The claim nonce that installed the current fence; 0 if none. */
  public long nonce() {
    AttributeValue v = item.get(CLAIM_NONCE);
    return v == null ? 0 : number(CLAIM_NONCE);
  }

  /** The record's id, from its scope and key attributes. */
  public RecordId id() {
    return RecordId.of(string(SCOPE), string(KEY));
  }

  /** Whether the item's fingerprint is {@code fp}. */
  public boolean fingerprintIs(byte[] fp) {
    return Arrays.equals(bytes(FINGERPRINT), fp);
  }

  /** The lease's end, epoch nanoseconds (in flight only). */
  public long leaseEnd() {
    return number(LEASE_END);
  }

  /**
   * What a claim at {@code now} with fingerprint {@code fp} returns for this item, which its
   * condition did not let it claim: in flight, a replay, or a mismatch. Empty when the item is in
   * fact claimable (it changed after the claim's write was refused): the caller claims again.
   */
  public Optional<ClaimOutcome> refusedClaim(byte[] fp, long now, Duration window) {
    String s = state();
    if (s.equals(RELEASED)) {
      return Optional.empty();
    }
    boolean sameRequest = fingerprintIs(fp);
    if (s.equals(COMPLETE)) {
      if (number(COMPLETED_AT) <= ItemLayout.minus(now, window)) {
        return Optional.empty();
      }
      return Optional.of(
          sameRequest
              ? new ClaimOutcome.Completed(response(), instant(number(COMPLETED_AT)))
              : new ClaimOutcome.Mismatch(KeyState.COMPLETE));
    }
    if (!sameRequest) {
      return Optional.of(new ClaimOutcome.Mismatch(KeyState.IN_FLIGHT));
    }
    long left = leaseEnd() - now;
    if (left <= 0) {
      return Optional.empty();
    }
    return Optional.of(new ClaimOutcome.InFlight(Duration.ofNanos(left)));
  }

  /**
   * The claim that installed this item's current fence: a takeover when the request's generation is
   * older than the fence, resuming from the recovery point its generation wrote.
   */
  public ClaimOutcome.Claimed claimed() {
    long fence = fence();
    long generation = number(GENERATION);
    if (generation == fence) {
      return ClaimOutcome.Claimed.fresh(FenceToken.of(fence));
    }
    if (generation > fence || generation <= 0) {
      throw corrupt(GENERATION, "generation " + generation + " with fence " + fence);
    }
    return new ClaimOutcome.Claimed(
        FenceToken.of(fence), point(generation), true, FenceToken.of(generation));
  }

  /** The snapshot {@code lookup} and {@code findAbandoned} return; the item is not released. */
  public RecordSnapshot snapshot() {
    String s = state();
    boolean complete = s.equals(COMPLETE);
    return new RecordSnapshot(
        id(),
        complete ? KeyState.COMPLETE : KeyState.IN_FLIGHT,
        Fingerprint.of(bytes(FINGERPRINT)),
        FenceToken.of(fence()),
        complete ? Optional.empty() : Optional.of(instant(leaseEnd())),
        point(number(complete ? COMPLETED_GENERATION : GENERATION)),
        complete ? Optional.of(response()) : Optional.empty(),
        complete ? Optional.of(instant(number(COMPLETED_AT))) : Optional.empty());
  }

  /** What the store found, for a {@code LeaseLostException}'s message. */
  public String describe() {
    String s = state();
    if (s.equals(RELEASED)) {
      return "record is absent (released)";
    }
    return "record is "
        + (s.equals(COMPLETE) ? "COMPLETE" : "IN_FLIGHT")
        + " with fence#"
        + fence();
  }

  /** The recovery point written by the request of {@code generation}, if it wrote one. */
  private Optional<RecoveryPoint> point(long generation) {
    AttributeValue name = item.get(POINT_NAME);
    AttributeValue tag = item.get(POINT_GENERATION);
    if (name == null || tag == null || number(POINT_GENERATION) != generation) {
      return Optional.empty();
    }
    AttributeValue data = item.get(POINT_DATA);
    return Optional.of(
        RecoveryPoint.of(string(POINT_NAME), data == null ? new byte[0] : bytes(POINT_DATA)));
  }

  private StoredResponse response() {
    AttributeValue headers = item.get(HEADERS);
    if (headers == null || !headers.hasL()) {
      throw corrupt(HEADERS, "no list");
    }
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (AttributeValue header : headers.l()) {
      List<AttributeValue> parts = header.hasL() ? header.l() : List.of();
      if (parts.isEmpty() || parts.get(0).s() == null) {
        throw corrupt(HEADERS, "a header without a name");
      }
      List<String> values = new ArrayList<>(parts.size() - 1);
      for (AttributeValue v : parts.subList(1, parts.size())) {
        values.add(v.s());
      }
      map.put(parts.get(0).s(), values);
    }
    AttributeValue body = item.get(BODY);
    try {
      return StoredResponse.of((int) number(STATUS), map, body == null ? new byte[0] : bytes(BODY));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw corrupt(HEADERS, e.getMessage());
    }
  }

  /** The headers of {@code response}, as the item keeps them: a list of [name, value…] lists. */
  public static AttributeValue headers(StoredResponse response) {
    List<AttributeValue> list = new ArrayList<>(response.headers().size());
    response
        .headers()
        .forEach(
            (name, values) -> {
              List<AttributeValue> parts = new ArrayList<>(values.size() + 1);
              parts.add(AttributeValue.fromS(name));
              values.forEach(v -> parts.add(AttributeValue.fromS(v)));
              list.add(AttributeValue.fromL(parts));
            });
    return AttributeValue.fromL(list);
  }

  private String string(String name) {
    AttributeValue v = item.get(name);
    if (v == null || v.s() == null) {
      throw corrupt(name, "missing or not a string");
    }
    return v.s();
  }

  private long number(String name) {
    AttributeValue v = item.get(name);
    if (v == null || v.n() == null) {
      throw corrupt(name, "missing or not a number");
    }
    try {
      return Long.parseLong(v.n());
    } catch (NumberFormatException e) {
      throw corrupt(name, "not a whole number: " + v.n());
    }
  }

  private byte[] bytes(String name) {
    AttributeValue v = item.get(name);
    SdkBytes b = v == null ? null : v.b();
    if (b == null) {
      throw corrupt(name, "missing or not binary");
    }
    return b.asByteArray();
  }

  private KeyStoreException corrupt(String attribute, @Nullable String what) {
    AttributeValue pk = item.get(PK);
    return new KeyStoreException(
        "corrupt idempotency item "
            + (pk == null ? "(no pk)" : pk.s())
            + ": attribute "
            + attribute
            + ": "
            + what
            + ". Was the item written by something other than DynamoDbKeyStore?");
  }
}
