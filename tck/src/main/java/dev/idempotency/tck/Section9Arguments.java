package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "9. Arguments and capabilities": arguments and the capability declaration (rules
 * 9.1 to 9.4).
 *
 * <p>{@code KeyStoreContract.ArgumentRules} runs these tests against the store under test.
 */
interface Section9Arguments extends ContractFixture {
  @Test
  @DisplayName("Rule 9.1: a null argument throws NullPointerException and changes nothing")
  @SuppressWarnings(
      "NullAway") // rule 9.1 passes null where the SPI forbids it, to see the store refuse it
  default void required_9_1_nullArgumentsThrowNullPointerException() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    FenceToken f = c.fence();
    Duration l = timing().stableLease();
    RecoveryPoint p = Samples.point("p");
    StoredResponse r = Samples.response("r");
    Instant t = now();
    Optional<RecordSnapshot> before = lookup(id);
    Map<String, Runnable> calls = new LinkedHashMap<>();
    calls.put("claim(null)", () -> store().claim(null));
    calls.put("heartbeat(null id)", () -> store().heartbeat(null, f, t, l));
    calls.put("heartbeat(null fence)", () -> store().heartbeat(id, null, t, l));
    calls.put("heartbeat(null now)", () -> store().heartbeat(id, f, null, l));
    calls.put("heartbeat(null lease)", () -> store().heartbeat(id, f, t, null));
    Map<RecordId, FenceToken> nullFence = new HashMap<>();
    nullFence.put(id, null);
    Map<RecordId, FenceToken> nullId = new HashMap<>();
    nullId.put(null, f);
    calls.put("heartbeatAll(null leases)", () -> store().heartbeatAll(null, t, l));
    calls.put("heartbeatAll(a null fence)", () -> store().heartbeatAll(nullFence, t, l));
    calls.put("heartbeatAll(a null id)", () -> store().heartbeatAll(nullId, t, l));
    calls.put("heartbeatAll(null now)", () -> store().heartbeatAll(Map.of(id, f), null, l));
    calls.put("heartbeatAll(null lease)", () -> store().heartbeatAll(Map.of(id, f), t, null));
    calls.put("checkpoint(null id)", () -> store().checkpoint(null, f, p, t, l));
    calls.put("checkpoint(null fence)", () -> store().checkpoint(id, null, p, t, l));
    calls.put("checkpoint(null point)", () -> store().checkpoint(id, f, null, t, l));
    calls.put("checkpoint(null now)", () -> store().checkpoint(id, f, p, null, l));
    calls.put("checkpoint(null lease)", () -> store().checkpoint(id, f, p, t, null));
    calls.put("complete(null id)", () -> store().complete(null, f, r, t));
    calls.put("complete(null fence)", () -> store().complete(id, null, r, t));
    calls.put("complete(null response)", () -> store().complete(id, f, null, t));
    calls.put("complete(null now)", () -> store().complete(id, f, r, null));
    calls.put("release(null id)", () -> store().release(null, f, t));
    calls.put("release(null fence)", () -> store().release(id, null, t));
    calls.put("release(null now)", () -> store().release(id, f, null));
    calls.put("lookup(null)", () -> store().lookup(null));
    calls.put("findAbandoned(null now)", () -> store().findAbandoned(null, 10));
    calls.put("deleteExpired(null now)", () -> store().deleteExpired(null, l, 10));
    calls.put("deleteExpired(null retention)", () -> store().deleteExpired(t, null, 10));
    for (Map.Entry<String, Runnable> call : calls.entrySet()) {
      verify().throwsA(NullPointerException.class, Rule.R9_1, call.getKey(), call.getValue());
    }
    unchanged(id, before, Rule.R9_1, "calls with a null argument");
    verify().inFlight(claim(id, FP_A), Rule.R9_1, "a claim after the calls with a null argument");
  }

  @Test
  @DisplayName("Rule 9.2: a non-positive lease, retention or limit throws IllegalArgumentException")
  default void required_9_2_nonPositiveArgumentsThrowIllegalArgumentException() {
    RecordId id = id("k1");
    ClaimOutcome.Claimed c = claimNew(id);
    FenceToken f = c.fence();
    Instant t = now();
    Duration r = timing().stableRetention();
    Optional<RecordSnapshot> before = lookup(id);
    Map<String, Runnable> calls = new LinkedHashMap<>();
    calls.put("heartbeat(lease=0)", () -> store().heartbeat(id, f, t, Duration.ZERO));
    calls.put("heartbeat(lease=-1s)", () -> store().heartbeat(id, f, t, Duration.ofSeconds(-1)));
    calls.put("heartbeatAll(lease=0)", () -> store().heartbeatAll(Map.of(id, f), t, Duration.ZERO));
    calls.put(
        "checkpoint(lease=0)",
        () -> store().checkpoint(id, f, Samples.point("p"), t, Duration.ZERO));
    calls.put(
        "checkpoint(lease=-1s)",
        () -> store().checkpoint(id, f, Samples.point("p"), t, Duration.ofSeconds(-1)));
    calls.put("findAbandoned(limit=0)", () -> store().findAbandoned(t, 0));
    calls.put("findAbandoned(limit=-1)", () -> store().findAbandoned(t, -1));
    calls.put("deleteExpired(retention=0)", () -> store().deleteExpired(t, Duration.ZERO, 10));
    calls.put(
        "deleteExpired(retention=-1s)", () -> store().deleteExpired(t, Duration.ofSeconds(-1), 10));
    calls.put("deleteExpired(limit=0)", () -> store().deleteExpired(t, r, 0));
    calls.put("deleteExpired(limit=-1)", () -> store().deleteExpired(t, r, -1));
    for (Map.Entry<String, Runnable> call : calls.entrySet()) {
      verify().throwsA(IllegalArgumentException.class, Rule.R9_2, call.getKey(), call.getValue());
    }
    unchanged(id, before, Rule.R9_2, "calls with a non-positive argument");
  }

  @Test
  @DisplayName(
      "Rule 9.3: capabilities() is stable and unmodifiable, and TRANSACTIONAL means TransactionalKeyStore")
  default void required_9_3_capabilitiesAreStable() {
    Set<StoreCapability> first = store().capabilities();
    verify().check(first != null, Rule.R9_3, () -> "capabilities() returned null");
    verify()
        .check(
            first.equals(store().capabilities()),
            Rule.R9_3,
            () -> "capabilities() changed between two calls");
    boolean modifiable = true;
    try {
      if (first.contains(StoreCapability.SHARED)) {
        first.remove(StoreCapability.SHARED);
        first.add(StoreCapability.SHARED);
      } else {
        first.add(StoreCapability.SHARED);
        first.remove(StoreCapability.SHARED);
      }
    } catch (UnsupportedOperationException expected) {
      modifiable = false;
    }
    boolean changed = modifiable;
    verify().check(!changed, Rule.R9_3, () -> "the set capabilities() returned can be modified");
    verify()
        .check(
            !first.contains(StoreCapability.TRANSACTIONAL)
                || store() instanceof TransactionalKeyStore<?>,
            Rule.R9_3,
            () -> "the store declares TRANSACTIONAL but does not implement TransactionalKeyStore");
  }

  @Test
  @DisplayName(
      "Rule 9.4: a store that cannot reach its storage throws StoreUnavailableException (not testable here)")
  default void untested_9_4_unreachableStorageThrowsStoreUnavailableException() {
    Assumptions.abort(
        "the TCK cannot take a store's storage down; test rule 9.4 in the store's own suite (stop"
            + " the server, or point the store at a closed port, and expect StoreUnavailableException)");
  }
}
