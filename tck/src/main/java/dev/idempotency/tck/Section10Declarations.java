package dev.idempotency.tck;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.tck.internal.Owner;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "10. Transactional stores", rules 10.6 to 10.8: the transaction handle the store
 * declares and hands its work, the calls refused before any work, and the declared capability.
 *
 * <p>{@code TransactionalKeyStoreContract.DeclarationRules} runs these tests against the store
 * under test.
 *
 * @param <T> the store's transaction handle
 */
interface Section10Declarations<T> extends TransactionalFixture<T> {
  @Test
  @DisplayName(
      "Rule 10.6: transactionType() is the same on every call, and every work is handed one")
  default void required_10_6_theWorkIsHandedTheDeclaredTransactionType() throws Exception {
    Class<T> declared = store().transactionType();
    verify()
        .check(
            declared != null && declared == store().transactionType(),
            Rule.R10_6,
            () ->
                "transactionType() returned "
                    + declared
                    + " and then "
                    + store().transactionType()
                    + "; expected one non-null class, the same every time");
    RecordId id = id("k1");
    Owner ex = owner(id, timing().stableLease());
    List<Object> handed = new ArrayList<>();
    TransactionalWork<T, String> phase =
        tx -> {
          handed.add(tx);
          write(tx, "k1 charged");
          return "";
        };
    commits(Rule.R10_2, "a phase of " + id, () -> inPhase(ex, Samples.point("charged"), phase));
    commits(
        Rule.R10_1,
        "completeWith of " + id,
        () ->
            completeWith(
                ex,
                tx -> {
                  handed.add(tx);
                  write(tx, "k1 shipped");
                  return Samples.response("declared");
                }));
    for (Object tx : handed) {
      verify()
          .check(
              declared.isInstance(tx),
              Rule.R10_6,
              () ->
                  "the work was handed "
                      + (tx == null ? "null" : "a " + tx.getClass().getName())
                      + ", not an instance of the declared "
                      + declared.getName());
    }
    verify()
        .check(
            handed.size() == 2,
            Rule.R10_6,
            () -> "a phase and a completion handed their work " + handed.size() + " handle(s)");
  }

  @Test
  @DisplayName("Rule 10.7: a null argument is refused before any work, and changes nothing")
  @SuppressWarnings(
      "NullAway") // rule 10.7 passes null where the SPI forbids it, to see the store refuse it
  default void required_10_7_nullArgumentIsRefusedBeforeAnyWork() throws Exception {
    RecordId id = id("k1");
    Owner ex = owner(id, timing().stableLease());
    Optional<RecordSnapshot> before = store().lookup(id);
    RecoveryPoint p = Samples.point("charged");
    AtomicInteger runs = new AtomicInteger();
    TransactionalWork<T, String> phase =
        tx -> {
          runs.incrementAndGet();
          write(tx, "k1 charged " + runs.get());
          return "";
        };
    TransactionalWork<T, StoredResponse> completion =
        tx -> {
          runs.incrementAndGet();
          write(tx, "k1 shipped " + runs.get());
          return Samples.response("refused");
        };
    RecordId r = ex.recordId();
    FenceToken f = ex.fence();
    Instant now = ex.now();
    Duration lease = ex.lease();
    record Refused(String call, Call<?> run) {}
    List<Refused> refusals =
        List.of(
            new Refused("inPhase(null id)", () -> store().inPhase(null, f, p, now, lease, phase)),
            new Refused(
                "inPhase(null fence)", () -> store().inPhase(r, null, p, now, lease, phase)),
            new Refused(
                "inPhase(null point)", () -> store().inPhase(r, f, null, now, lease, phase)),
            new Refused("inPhase(null now)", () -> store().inPhase(r, f, p, null, lease, phase)),
            new Refused("inPhase(null lease)", () -> store().inPhase(r, f, p, now, null, phase)),
            new Refused("inPhase(null work)", () -> store().inPhase(r, f, p, now, lease, null)),
            new Refused(
                "completeWith(null id)", () -> store().completeWith(null, f, now, completion)),
            new Refused(
                "completeWith(null fence)", () -> store().completeWith(r, null, now, completion)),
            new Refused(
                "completeWith(null now)", () -> store().completeWith(r, f, null, completion)),
            new Refused("completeWith(null work)", () -> store().completeWith(r, f, now, null)));
    AtomicReference<String> ranFor = new AtomicReference<>();
    for (Refused refused : refusals) {
      int runsBefore = runs.get();
      Exception thrown = thrownBy(refused.run());
      verify()
          .check(
              thrown instanceof NullPointerException,
              Rule.R10_7,
              () ->
                  refused.call()
                      + " threw "
                      + describe(thrown)
                      + ", expected NullPointerException");
      if (runs.get() != runsBefore) {
        ranFor.compareAndSet(null, refused.call());
      }
    }
    verify()
        .check(
            ranFor.get() == null, Rule.R10_7, () -> ranFor.get() + " ran the work before refusing");
    requireMarkers(Rule.R10_7, "after the refused calls");
    unchanged(id, before, Rule.R10_7, "the refused calls");
  }

  @Test
  @DisplayName("Rule 10.8: a TransactionalKeyStore declares TRANSACTIONAL")
  default void required_10_8_transactionalStoreDeclaresTheCapability() {
    Set<StoreCapability> declared = store().capabilities();
    verify()
        .check(
            declared != null && declared.contains(StoreCapability.TRANSACTIONAL),
            Rule.R10_8,
            () -> "a TransactionalKeyStore declares " + declared + ", without TRANSACTIONAL");
  }
}
