package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.tck.mutants.TransactionalMapKeyStore;
import dev.idempotency.tck.mutants.TransactionalMutants;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.engine.TestExecutionResult;

/**
 * The transactional contract tests itself, as {@link TckSelfTest} does the main one: each
 * deliberately broken transactional store must fail the tests of the rule it breaks, with a message
 * naming that rule, and every other failure of its run must be a rule violation too (not an
 * exception escaping the contract). The whole contract runs against each mutant: it is a few dozen
 * calls on an in-memory store. One contract, {@link MutantContract}, serves every mutant: the
 * launcher names the store, and {@link #mutants} lists each with the rule it breaks.
 */
class TransactionalTckSelfTest {

  /**
   * The contract over the {@link TransactionalMapKeyStore} the launcher names (a class of {@link
   * TransactionalMutants}); runs only inside this self-test.
   */
  @ExtendWith({TckSelfTest.OnlyInsideTheSelfTest.class, TckSelfTest.NamedStore.class})
  static class MutantContract extends TransactionalMapKeyStoreContractTest
      implements TckSelfTest.NamedStoreContract {
    private String store = "";

    @Override
    public void useStore(String name) {
      store = name;
    }

    @Override
    TransactionalMapKeyStore create() {
      for (Class<?> kind : TransactionalMutants.class.getDeclaredClasses()) {
        if (kind.getSimpleName().equals(store)
            && TransactionalMapKeyStore.class.isAssignableFrom(kind)) {
          try {
            return (TransactionalMapKeyStore) kind.getConstructor().newInstance();
          } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create the store " + store, e);
          }
        }
      }
      throw new IllegalArgumentException("TransactionalMutants has no store named " + store);
    }
  }

  /**
   * The correct store on the system clock: the contract's real-time (SERVER_CLOCK) path, end to
   * end.
   */
  private static final String SERVER_CLOCK = "ServerClock";

  /** The correct store, tested by a subclass that cannot make it abort a transaction retryably. */
  @ExtendWith(TckSelfTest.OnlyInsideTheSelfTest.class)
  static class NoRetryableAbortContract extends TransactionalMapKeyStoreContractTest {
    @Override
    protected boolean canAbortRetryably() {
      return false;
    }
  }

  private static final String RETRY_TEST = "optional_10_5_workRunAgainCommitsOnlyItsLastRun";
  private static final String STALE_TEST = "required_10_4_staleFenceRollsTheWorkBack";

  /**
   * Each mutant, the rule it breaks, and the tests of that rule that must fail, with the rule
   * named.
   */
  static Stream<Arguments> mutants() {
    return Stream.of(
        Arguments.of("StaleFenceCommitsWork", "10.4", Set.of(STALE_TEST)),
        Arguments.of(
            "CheckpointDespiteFailedWork",
            "10.3",
            Set.of("required_10_3_workThatThrowsRollsBackEverythingAndIsRethrownAsIs")),
        Arguments.of("ReRunKeepsEarlierWrites", "10.5", Set.of(RETRY_TEST)),
        Arguments.of(
            "NoTransactionType",
            "10.6",
            Set.of("required_10_6_theWorkIsHandedTheDeclaredTransactionType")),
        Arguments.of(
            "NullsRefusedLate", "10.7", Set.of("required_10_7_nullArgumentIsRefusedBeforeAnyWork")),
        Arguments.of(
            "PhaseWithoutCheckpoint",
            "10.2",
            Set.of("required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether")),
        Arguments.of(
            "PhaseKeepsOldLease",
            "10.2",
            Set.of("required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether")),
        Arguments.of(
            "WorkDropped",
            "10.1",
            Set.of("required_10_1_completeWithCommitsTheWorkAndTheCompletionTogether")),
        Arguments.of(
            "WorkDropped",
            "10.2",
            Set.of("required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether")),
        Arguments.of(
            "Undeclared", "10.8", Set.of("required_10_8_transactionalStoreDeclaresTheCapability")),
        Arguments.of(
            "ClaimCommittedSeparately",
            "10.9",
            Set.of("optional_10_9_claimWorkAndCompletionCommitTogether")),
        Arguments.of(
            "RecoveryPointIgnored",
            "10.12",
            Set.of("optional_10_12_expiredTwoCommitRecordIsTakenOverOrRefused")),
        Arguments.of(
            "NoRowLock",
            "10.13",
            Set.of("optional_10_13_concurrentDuplicatesCommitOnceAndReplay")));
  }

  @ParameterizedTest(name = "{0} fails rule {1}")
  @MethodSource("mutants")
  void eachMutantFailsTheRuleItBreaks(String mutant, String rule, Set<String> mustFail) {
    Map<String, TestExecutionResult> results = run(mutant);
    assertThat(results)
        .as("the tests %s ran", mutant)
        .containsKeys(mustFail.toArray(String[]::new));
    Map<String, String> problems = new TreeMap<>();
    results.forEach(
        (test, r) -> {
          if (r.getStatus() == TestExecutionResult.Status.FAILED) {
            Throwable t = r.getThrowable().orElseThrow();
            String message = String.valueOf(t.getMessage());
            if (!(t instanceof AssertionError)
                || !message.matches("(?s)^Rule \\d+\\.\\d+ violated: .*")
                || !message.contains("seed=")
                || !message.contains("If this fails, check")) {
              problems.put(test, "not a rule violation with seed and advice: " + t);
            } else if (mustFail.contains(test)
                && !message.startsWith("Rule " + rule + " violated")) {
              problems.put(
                  test,
                  "failed, but not on rule "
                      + rule
                      + ": "
                      + message.lines().findFirst().orElse(""));
            }
          } else if (mustFail.contains(test)) {
            problems.put(test, r.getStatus() + ", but the mutant breaks rule " + rule);
          } else if (r.getStatus() == TestExecutionResult.Status.ABORTED) {
            problems.put(test, "aborted: " + r.getThrowable().map(Throwable::toString).orElse("?"));
          }
        });
    StringBuilder caught = new StringBuilder(mutant + " (breaks rule " + rule + ") failed:");
    results.forEach(
        (test, r) ->
            r.getThrowable()
                .filter(t -> r.getStatus() == TestExecutionResult.Status.FAILED)
                .ifPresent(
                    t ->
                        caught
                            .append("\n  ")
                            .append(test)
                            .append(": ")
                            .append(
                                String.valueOf(t.getMessage()).lines().findFirst().orElse(""))));
    System.out.println(caught);
    assertThat(problems).as("what the run against %s got wrong", mutant).isEmpty();
  }

  /** Runs the whole contract against the transactional store called {@code store}. */
  private static Map<String, TestExecutionResult> run(String store) {
    return TckSelfTest.run(MutantContract.class, Map.of(TckSelfTest.STORE, store));
  }

  @Test
  void everyMutantIsChecked() {
    List<Object> checked = mutants().map(a -> a.get()[0]).distinct().toList();
    List<String> declared = new ArrayList<>();
    for (Class<?> c : TransactionalMutants.class.getDeclaredClasses()) {
      if (TransactionalMapKeyStore.class.isAssignableFrom(c)
          && !c.getSimpleName().equals(SERVER_CLOCK)) {
        declared.add(c.getSimpleName());
      }
    }
    assertThat(checked)
        .as("the mutants with an expectation (add one for every new mutant)")
        .containsExactlyInAnyOrderElementsOf(declared);
  }

  /** Real sleeps of about three leases (1 s each by default). */
  @Test
  void serverClockStorePassesTheWholeContractInRealTime() {
    TckSelfTest.requireAllPassed(SERVER_CLOCK, run(SERVER_CLOCK), Set.of());
  }

  @Test
  void withoutARetryableAbortRule10_5IsSkippedWithTheReason() {
    Map<String, TestExecutionResult> results =
        TckSelfTest.run(NoRetryableAbortContract.class, Map.of());
    TckSelfTest.requireAllPassed(
        NoRetryableAbortContract.class.getSimpleName(), results, Set.of(RETRY_TEST));
    assertThat(results.get(RETRY_TEST).getThrowable()).get().asString().contains("abortRetryably");
  }
}
