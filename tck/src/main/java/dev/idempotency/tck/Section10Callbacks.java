package dev.idempotency.tck;

import dev.idempotency.Execution;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalWork;
import dev.idempotency.tck.internal.ObservedExecution;
import dev.idempotency.tck.internal.Rule;
import dev.idempotency.tck.internal.Samples;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, section "10. Transactional stores", rules 10.6 to 10.8: the callbacks that bracket a
 * store's transaction and report its commit, the calls refused before any work, and the declared
 * capability.
 *
 * <p>{@code TransactionalKeyStoreContract.CallbackRules} runs these tests against the store under
 * test.
 *
 * @param <T> the store's transaction handle
 */
interface Section10Callbacks<T> extends TransactionalFixture<T> {
  @Test
  @DisplayName(
      "Rule 10.6: the callbacks bracket the transaction, and a commit is reported once it is visible")
  default void required_10_6_callbacksBracketTheWorkAndReportTheCommitOnceVisible()
      throws Exception {
    RecordId id = id("k1");
    ObservedExecution ex = owner(id, timing().stableLease());
    RecoveryPoint charged = Samples.point("charged");
    commits(
        Rule.R10_2,
        "a phase of " + id,
        () -> store().inPhase(ex, charged, work(ex, "k1 charged", "")));
    requireVisibleWhenReported(
        ex,
        "the phase to " + charged.name(),
        charged,
        "k1 charged",
        r -> r.recoveryPoint().equals(Optional.of(charged)),
        "phaseCommitted(" + charged.name() + ") with the" + " phase's write and point visible");
    ex.forget();
    StoredResponse response = Samples.response("callbacks");
    commits(
        Rule.R10_1,
        "completeWith of " + id,
        () -> store().completeWith(ex, work(ex, "k1 shipped", response)));
    requireVisibleWhenReported(
        ex,
        "the completion",
        response,
        "k1 shipped",
        r -> r.state() == KeyState.COMPLETE,
        "completionCommitted with the work's response, its write visible and the record COMPLETE");
  }

  @Test
  @DisplayName(
      "Rule 10.6: a transaction that rolled back is closed and never reported as committed")
  default void required_10_6_rolledBackTransactionsAreClosedAndNeverReportedCommitted()
      throws Exception {
    RecordId id = id("k1");
    ObservedExecution ex = owner(id, timing().stableLease());
    thrownBy(
        () ->
            store()
                .inPhase(
                    ex,
                    Samples.point("charged"),
                    failing(ex, "k1 charged", new IllegalStateException("card declined"))));
    requireBracket(ex, "a phase whose work threw");
    requireNoCommitReported(ex, "a phase whose work threw");
    thrownBy(
        () ->
            store()
                .completeWith(
                    ex, failing(ex, "k1 shipped", new IllegalStateException("out of stock"))));
    requireBracket(ex, "a phase and a completion whose work threw");
    requireNoCommitReported(ex, "a completion whose work threw");
    // the record released and claimed by another request: the execution's fence is stale
    store().release(id, ex.fence(), clock().instant());
    verify()
        .claimed(
            store().claim(request(id, timing().stableLease())),
            Rule.R5_3,
            "a claim of " + id + " after its" + " release");
    ex.forget();
    Exception stale =
        thrownBy(() -> store().completeWith(ex, work(ex, "k1 stale", Samples.response("stale"))));
    verify()
        .check(
            stale instanceof LeaseLostException,
            Rule.R10_4,
            () ->
                "completeWith with the fence of a"
                    + " released record threw "
                    + describe(stale)
                    + ", expected LeaseLostException");
    requireBracket(ex, "a completion with a stale fence");
    requireNoCommitReported(ex, "a completion with a stale fence");
    thrownBy(() -> store().inPhase(ex, Samples.point("charged"), work(ex, "k1 stale phase", "")));
    requireBracket(ex, "a completion and a phase with a stale fence");
    requireNoCommitReported(ex, "a phase with a stale fence");
  }

  @Test
  @DisplayName(
      "Rule 10.7: an Execution without the callbacks, or a null argument, is refused before any work")
  @SuppressWarnings(
      "NullAway") // rule 10.7 passes null where the SPI forbids it, to see the store refuse it
  default void required_10_7_foreignExecutionOrNullArgumentIsRefusedBeforeAnyWork()
      throws Exception {
    RecordId id = id("k1");
    ObservedExecution ex = owner(id, timing().stableLease());
    Optional<RecordSnapshot> before = store().lookup(id);
    Execution foreign = ex.withoutCallbacks();
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
    record Refused(String call, Class<? extends Exception> expected, Call<?> run) {}
    Class<NullPointerException> npe = NullPointerException.class;
    List<Refused> refusals =
        List.of(
            new Refused(
                "inPhase(an Execution that is not TransactionCallbacks)",
                IllegalArgumentException.class,
                () -> store().inPhase(foreign, p, phase)),
            new Refused(
                "completeWith(an Execution that is not TransactionCallbacks)",
                IllegalArgumentException.class,
                () -> store().completeWith(foreign, completion)),
            new Refused("inPhase(null execution)", npe, () -> store().inPhase(null, p, phase)),
            new Refused("inPhase(null point)", npe, () -> store().inPhase(ex, null, phase)),
            new Refused("inPhase(null work)", npe, () -> store().inPhase(ex, p, null)),
            new Refused(
                "completeWith(null execution)", npe, () -> store().completeWith(null, completion)),
            new Refused("completeWith(null work)", npe, () -> store().completeWith(ex, null)));
    for (Refused refused : refusals) {
      Exception thrown = thrownBy(refused.run());
      verify()
          .check(
              refused.expected().isInstance(thrown),
              Rule.R10_7,
              () ->
                  refused.call()
                      + " threw "
                      + describe(thrown)
                      + ", expected "
                      + refused.expected().getSimpleName());
      verify()
          .check(
              runs.get() == 0,
              Rule.R10_7,
              () -> refused.call() + " ran the work " + runs.get() + " time(s) before refusing");
      verify()
          .check(
              ex.events().isEmpty(),
              Rule.R10_7,
              () -> refused.call() + " called back " + ex.events() + " before refusing");
    }
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
