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
 * calls on an in-memory store.
 */
class TransactionalTckSelfTest {

  /**
   * A contract over one kind of {@link TransactionalMapKeyStore}; runs only inside this self-test.
   */
  @ExtendWith(TckSelfTest.OnlyInsideTheSelfTest.class)
  abstract static class MutantContract extends TransactionalMapKeyStoreContractTest {}

  static class StaleFenceCommitsWorkContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.StaleFenceCommitsWork();
    }
  }

  static class CheckpointDespiteFailedWorkContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.CheckpointDespiteFailedWork();
    }
  }

  static class ReRunKeepsEarlierWritesContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.ReRunKeepsEarlierWrites();
    }
  }

  static class CommitReportedEarlyContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.CommitReportedEarly();
    }
  }

  static class CommitReportedOnRollbackContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.CommitReportedOnRollback();
    }
  }

  static class NotClosedOnFailureContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.NotClosedOnFailure();
    }
  }

  static class ForeignExecutionAcceptedContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.ForeignExecutionAccepted();
    }
  }

  static class PhaseWithoutCheckpointContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.PhaseWithoutCheckpoint();
    }
  }

  static class PhaseKeepsOldLeaseContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.PhaseKeepsOldLease();
    }
  }

  static class ClosedBeforeCommitContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.ClosedBeforeCommit();
    }
  }

  static class WorkDroppedContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.WorkDropped();
    }
  }

  static class UndeclaredContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.Undeclared();
    }
  }

  static class ClaimCommittedSeparatelyContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.ClaimCommittedSeparately();
    }
  }

  static class RecoveryPointIgnoredContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.RecoveryPointIgnored();
    }
  }

  static class NoRowLockContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.NoRowLock();
    }
  }

  /**
   * The correct store on the system clock: the contract's real-time (SERVER_CLOCK) path, end to
   * end.
   */
  static class ServerClockContract extends MutantContract {
    @Override
    TransactionalMapKeyStore create() {
      return new TransactionalMutants.ServerClock();
    }
  }

  /** The correct store, tested by a subclass that cannot make it abort a transaction retryably. */
  static class NoRetryableAbortContract extends MutantContract {
    @Override
    protected boolean canAbortRetryably() {
      return false;
    }
  }

  private static final String RETRY_TEST = "optional_10_5_workRunAgainCommitsOnlyItsLastRun";
  private static final String STALE_TEST = "required_10_4_staleFenceRollsTheWorkBack";
  private static final String ROLLBACK_CALLBACKS_TEST =
      "required_10_6_rolledBackTransactionsAreClosedAndNeverReportedCommitted";

  /**
   * Each mutant, the rule it breaks, and the tests of that rule that must fail, with the rule
   * named.
   */
  static Stream<Arguments> mutants() {
    return Stream.of(
        Arguments.of(StaleFenceCommitsWorkContract.class, "10.4", Set.of(STALE_TEST)),
        Arguments.of(
            CheckpointDespiteFailedWorkContract.class,
            "10.3",
            Set.of("required_10_3_workThatThrowsRollsBackEverythingAndIsRethrownAsIs")),
        Arguments.of(ReRunKeepsEarlierWritesContract.class, "10.5", Set.of(RETRY_TEST)),
        Arguments.of(
            CommitReportedEarlyContract.class,
            "10.6",
            Set.of("required_10_6_callbacksBracketTheWorkAndReportTheCommitOnceVisible")),
        Arguments.of(
            CommitReportedOnRollbackContract.class, "10.6", Set.of(ROLLBACK_CALLBACKS_TEST)),
        Arguments.of(NotClosedOnFailureContract.class, "10.6", Set.of(ROLLBACK_CALLBACKS_TEST)),
        Arguments.of(
            ForeignExecutionAcceptedContract.class,
            "10.7",
            Set.of("required_10_7_foreignExecutionOrNullArgumentIsRefusedBeforeAnyWork")),
        Arguments.of(
            PhaseWithoutCheckpointContract.class,
            "10.2",
            Set.of("required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether")),
        Arguments.of(
            PhaseKeepsOldLeaseContract.class,
            "10.2",
            Set.of("required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether")),
        Arguments.of(
            ClosedBeforeCommitContract.class,
            "10.6",
            Set.of("required_10_6_callbacksBracketTheWorkAndReportTheCommitOnceVisible")),
        Arguments.of(
            WorkDroppedContract.class,
            "10.1",
            Set.of("required_10_1_completeWithCommitsTheWorkAndTheCompletionTogether")),
        Arguments.of(
            WorkDroppedContract.class,
            "10.2",
            Set.of("required_10_2_inPhaseCommitsTheWorkAndTheRecoveryPointTogether")),
        Arguments.of(
            UndeclaredContract.class,
            "10.8",
            Set.of("required_10_8_transactionalStoreDeclaresTheCapability")),
        Arguments.of(
            ClaimCommittedSeparatelyContract.class,
            "10.9",
            Set.of("optional_10_9_claimWorkAndCompletionCommitTogether")),
        Arguments.of(
            RecoveryPointIgnoredContract.class,
            "10.12",
            Set.of("optional_10_12_expiredTwoCommitRecordIsTakenOverOrRefused")),
        Arguments.of(
            NoRowLockContract.class,
            "10.13",
            Set.of("optional_10_13_concurrentDuplicatesCommitOnceAndReplay")));
  }

  @ParameterizedTest(name = "{0} fails rule {1}")
  @MethodSource("mutants")
  void eachMutantFailsTheRuleItBreaks(
      Class<? extends MutantContract> contract, String rule, Set<String> mustFail) {
    Map<String, TestExecutionResult> results = TckSelfTest.run(contract);
    assertThat(results)
        .as("the tests %s ran", contract.getSimpleName())
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
    StringBuilder caught =
        new StringBuilder(contract.getSimpleName() + " (breaks rule " + rule + ") failed:");
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
    assertThat(problems)
        .as("what the run against %s got wrong", contract.getSimpleName())
        .isEmpty();
  }

  @Test
  void everyMutantIsChecked() {
    List<Object> checked = mutants().map(a -> a.get()[0]).distinct().toList();
    List<Object> declared = new ArrayList<>();
    for (Class<?> c : TransactionalTckSelfTest.class.getDeclaredClasses()) {
      if (MutantContract.class.isAssignableFrom(c)
          && c != MutantContract.class
          && c != ServerClockContract.class
          && c != NoRetryableAbortContract.class) {
        declared.add(c);
      }
    }
    assertThat(checked)
        .as("the mutants with an expectation (add one for every new mutant)")
        .containsExactlyInAnyOrderElementsOf(declared);
  }

  /** Real sleeps of about three leases (1 s each by default). */
  @Test
  void serverClockStorePassesTheWholeContractInRealTime() {
    TckSelfTest.requireAllPassed(
        ServerClockContract.class, TckSelfTest.run(ServerClockContract.class), Set.of());
  }

  @Test
  void withoutARetryableAbortRule10_5IsSkippedWithTheReason() {
    Map<String, TestExecutionResult> results = TckSelfTest.run(NoRetryableAbortContract.class);
    TckSelfTest.requireAllPassed(NoRetryableAbortContract.class, results, Set.of(RETRY_TEST));
    assertThat(results.get(RETRY_TEST).getThrowable()).get().asString().contains("abortRetryably");
  }
}
