package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.tck.internal.Knobs;
import dev.idempotency.tck.mutants.MapKeyStore;
import dev.idempotency.tck.mutants.Mutants;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The TCK tests itself: each deliberately broken store must fail the rule it breaks, with a message
 * naming that rule, as reactive-streams' {@code requireTestFailure} does. The contract runs against
 * each mutant through the JUnit Platform Launcher, restricted to the tests named, so the self-test
 * stays fast. One contract, {@link MutantContract}, serves every mutant: the launcher names the
 * store in {@link #STORE}, and {@link #catches} lists each mutant with the tests it must fail.
 *
 * <p>The mutant contract is a static nested class, which surefire's default excludes ({@code
 * **}{@code /*$*}) keep out of the normal run; and should a {@code -Dtest=} pattern pick it up,
 * {@link OnlyInsideTheSelfTest} skips it, with the reason, unless the self-test's launcher runs it.
 */
class TckSelfTest {

  /** The launcher configuration parameter that marks a run as the self-test's own. */
  static final String INSIDE_SELF_TEST = "idempotency.tck.insideSelfTest";

  /**
   * Keeps the mutant contracts from running on their own: surefire's default excludes skip nested
   * classes, but an explicit {@code -Dtest=…} pattern does not, and a mutant run outside the
   * self-test fails, as it should.
   */
  static final class OnlyInsideTheSelfTest implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return context.getConfigurationParameter(INSIDE_SELF_TEST).isPresent()
          ? ConditionEvaluationResult.enabled("run by TckSelfTest")
          : ConditionEvaluationResult.disabled(
              "a deliberately broken store: it runs only inside TckSelfTest, which"
                  + " requires its failures");
    }
  }

  /**
   * The launcher configuration parameter that names the store a {@link NamedStoreContract} tests.
   */
  static final String STORE = "idempotency.tck.store";

  /** A contract whose store the self-test's launcher names, in {@link #STORE}. */
  interface NamedStoreContract {
    /** Makes the tests of this instance run against the store called {@code name}. */
    void useStore(String name);
  }

  /**
   * Hands each {@link NamedStoreContract} instance of a test the store the launcher named, before
   * any {@code @BeforeEach} method (the contract's set-up creates the store) runs.
   */
  static final class NamedStore implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) {
      String name =
          context
              .getConfigurationParameter(STORE)
              .orElseThrow(
                  () -> new IllegalStateException("the launcher names no store in " + STORE));
      for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
        if (instance instanceof NamedStoreContract contract) {
          contract.useStore(name);
        }
      }
    }
  }

  /**
   * The contract over the {@link MapKeyStore} the launcher names (see {@link #store}), with peers
   * sharing its records.
   */
  @ExtendWith({OnlyInsideTheSelfTest.class, NamedStore.class})
  static class MutantContract extends KeyStoreContract implements NamedStoreContract {
    private String store = "";

    @Override
    public void useStore(String name) {
      store = name;
    }

    @Override
    protected KeyStore newStore(TckContext context) {
      return store(store);
    }

    @Override
    protected KeyStore newPeer(KeyStore store, TckContext context) {
      return ((MapKeyStore) store).peer();
    }
  }

  /** The correct store on the system clock: the contract's real-time (SERVER_CLOCK) path. */
  static final String SERVER_CLOCK = "ServerClock";

  /**
   * The correct store, but every claim takes a whole real-time lease: no time rule can be checked
   * in time.
   */
  static final String SLOW_SERVER_CLOCK = "SlowServerClock";

  /** Every test aborts before it checks anything, as when every real-time check came too late. */
  static final String ALL_ABORTED = "AllAborted";

  /** The stores above, which are not mutants: they pass, or abort, rather than fail a rule. */
  private static final Set<String> NOT_MUTANTS =
      Set.of(SERVER_CLOCK, SLOW_SERVER_CLOCK, ALL_ABORTED);

  /** A new store of the kind {@code name}: a class of {@link Mutants}, or one of the controls. */
  static MapKeyStore store(String name) {
    if (name.equals(SLOW_SERVER_CLOCK)) {
      return new Mutants.SlowServerClock(Duration.ofMillis(Knobs.serverClockLeaseMillis()));
    }
    if (name.equals(ALL_ABORTED)) {
      return Assumptions.abort("aborted on purpose: this run checks nothing");
    }
    for (Class<?> kind : Mutants.class.getDeclaredClasses()) {
      if (kind.getSimpleName().equals(name) && MapKeyStore.class.isAssignableFrom(kind)) {
        try {
          return (MapKeyStore) kind.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot create the store " + name, e);
        }
      }
    }
    throw new IllegalArgumentException("Mutants has no store named " + name);
  }

  /** The names of the mutants: every {@link MapKeyStore} of {@link Mutants} but the controls. */
  static Set<String> mutantNames() {
    Set<String> names = new TreeSet<>();
    for (Class<?> kind : Mutants.class.getDeclaredClasses()) {
      if (MapKeyStore.class.isAssignableFrom(kind) && !NOT_MUTANTS.contains(kind.getSimpleName())) {
        names.add(kind.getSimpleName());
      }
    }
    return names;
  }

  // ---------------------------------------------------------------------------------------------------------------

  @Test
  void aRunInWhichEveryTestAbortedIsRed() {
    Map<String, TestExecutionResult> results = runAgainst(ALL_ABORTED);
    assertThat(results)
        .as("the tests of a contract whose store factory aborts")
        .isNotEmpty()
        .allSatisfy(
            (test, r) ->
                assertThat(r.getStatus()).as(test).isEqualTo(TestExecutionResult.Status.ABORTED));
    assertThatThrownBy(() -> requireAllPassed(ALL_ABORTED, results, Set.of()))
        .as("the verdict on a run in which every test aborted and none checked anything")
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("aborted on purpose");
  }

  @Test
  void aTimeRuleCheckedTooLateAbortsLocallyAndFailsOnCi() {
    String test = "required_4_1_leaseExpiresExactlyAtItsEnd";
    TestExecutionResult local =
        withKnob(Knobs.TOO_SLOW, "abort", () -> runAgainst(SLOW_SERVER_CLOCK, test)).get(test);
    assertThat(local.getStatus())
        .as("%s against a store slower than the lease, %s=abort", test, Knobs.TOO_SLOW)
        .isEqualTo(TestExecutionResult.Status.ABORTED);
    assertThat(local.getThrowable()).get().asString().contains("too slow");
    TestExecutionResult ci =
        withKnob(Knobs.TOO_SLOW, "fail", () -> runAgainst(SLOW_SERVER_CLOCK, test)).get(test);
    assertThat(ci.getStatus())
        .as(
            "%s against a store slower than the lease, %s=fail (the default under CI=true)",
            test, Knobs.TOO_SLOW)
        .isEqualTo(TestExecutionResult.Status.FAILED);
    assertThat(ci.getThrowable())
        .get()
        .isInstanceOf(AssertionError.class)
        .asString()
        .contains("too slow");
  }

  /**
   * A test of the contract that must fail against a mutant, with {@code rule} in its message, in
   * one of {@code runs} runs: more than one where a race or a random history catches the mutant by
   * chance.
   */
  record Catch(String mutant, String test, String rule, int runs) {
    @Override
    public String toString() {
      return mutant + " fails " + test + " (" + rule + ")";
    }
  }

  /** Every mutant and the tests of the rule it breaks. */
  static Stream<Catch> catches() {
    return Stream.of(
        new Catch(
            "CheckThenInsert", "required_2_3_concurrentClaimsYieldExactlyOneWinner", "Rule 2.3", 3),
        new Catch(
            "CheckThenInsert",
            "stochastic_2_1_smallConcurrentHistoriesAreLinearizable",
            "Rule 2.1",
            5),
        new Catch("NoFencing", "required_3_2_staleOwnerCannotWriteAfterATakeover", "Rule 3.2", 1),
        new Catch(
            "NoFencing", "required_3_4_writesWithoutTheCurrentFenceChangeNothing", "Rule 3.4", 1),
        new Catch("NoFencing", "stochastic_2_1_sequentialHistoriesFollowTheModel", "Rule 3.", 5),
        new Catch(
            "BinaryState", "required_1_2_sameRequestWhileTheLeaseIsLiveIsInFlight", "Rule 1.2", 1),
        new Catch(
            "BinaryState", "required_2_3_concurrentClaimsYieldExactlyOneWinner", "Rule 2.3", 3),
        new Catch("NeverExpires", "required_4_1_leaseExpiresExactlyAtItsEnd", "Rule 4.1", 1),
        new Catch(
            "NeverExpires",
            "required_4_3_completedRecordCountsAsAbsentOnceTheWindowPassed",
            "Rule 4.3",
            1),
        new Catch("FenceReset", "required_3_1_fenceGrowsAcrossRelease", "Rule 3.1", 1),
        new Catch("FenceReset", "required_3_1_fenceGrowsAcrossPurge", "Rule 3.1", 1),
        new Catch(
            "FenceDrawnBeforeInstall",
            "required_3_1_fenceGrowsAcrossConcurrentReleases",
            "Rule 3.1",
            3),
        new Catch(
            "LimitNotHeld",
            "required_5_5_aResponseOverTheDeclaredLimitIsRefusedAndChangesNothing",
            "Rule 5.5",
            1),
        new Catch(
            "LimitRefusedAsOutage",
            "required_5_5_aResponseOverTheDeclaredLimitIsRefusedAndChangesNothing",
            "Rule 5.5",
            1),
        new Catch("LeaseOffByOne", "required_4_1_leaseExpiresExactlyAtItsEnd", "Rule 4.1", 1),
        new Catch(
            "TakeoverByAnyRequest",
            "required_1_5_otherRequestIsMismatchEvenAfterTheLeaseExpired",
            "Rule 1.5",
            1),
        new Catch(
            "UnboundedDelete", "required_7_3_deleteExpiredWorksInBoundedBatches", "Rule 7.3", 1),
        new Catch(
            "LiveLeaseRequired",
            "required_3_3_ownerWhoseLeaseExpiredCanWriteUntilTakenOver",
            "Rule 3.3",
            1),
        new Catch(
            "SilentBatchRenewal",
            "required_3_5_heartbeatAllRenewsOwnersAndReportsTheRefused",
            "Rule 3.5",
            1),
        new Catch(
            "GenerationNotKept",
            "required_3_6_takeoversKeepTheGenerationNewRequestsBeginTheirOwn",
            "Rule 3.6",
            1),
        new Catch("SortedHeaders", "required_5_1_replayIsByteForByte", "Rule 5.1", 1),
        new Catch("FlatKey", "required_6_2_recordIdentityIsExact", "Rule 6.2", 1),
        new Catch(
            "ListIgnoresSelection",
            "optional_11_1_listReturnsExactlyTheRecordsOfTheSelection",
            "Rule 11.1",
            1),
        new Catch(
            "ListRepeatsAcrossPages",
            "optional_11_2_pagesNeitherRepeatNorSkipRecords",
            "Rule 11.2",
            1),
        new Catch(
            "ListSkipsAcrossPages",
            "optional_11_2_pagesNeitherRepeatNorSkipRecords",
            "Rule 11.2",
            1),
        new Catch(
            "ListScopeAsPrefix", "optional_11_3_aScopeListsOnlyItsOwnRecords", "Rule 11.3", 1),
        new Catch(
            "ExtendIgnoresFence",
            "optional_11_4_extendRetentionKeepsTheRecordAndNothingElse",
            "Rule 11.4",
            1),
        new Catch(
            "ExtendMovesTheWindow",
            "optional_11_4_extendRetentionKeepsTheRecordAndNothingElse",
            "Rule 11.4",
            1),
        new Catch(
            "ExtendShortens",
            "optional_11_4_extendRetentionKeepsTheRecordAndNothingElse",
            "Rule 11.4",
            1));
  }

  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.MethodSource("catches")
  void eachMutantFailsTheRuleItBreaks(Catch c) {
    requireFailureInSomeRun(c.mutant(), c.test(), c.rule(), c.runs());
  }

  @Test
  void everyMutantFailsSomeNamedTest() {
    Set<String> caught =
        catches().map(Catch::mutant).collect(Collectors.toCollection(TreeSet::new));
    assertThat(caught)
        .as("the mutants with a test they must fail (add one for every new mutant)")
        .isEqualTo(mutantNames());
  }

  /**
   * Slow (real sleeps): the correct store on the system clock passes the whole contract in real
   * time.
   */
  @Test
  @Tag("slow")
  void serverClockStorePassesTheWholeContract() {
    long start = System.nanoTime();
    Map<String, TestExecutionResult> results = runAgainst(SERVER_CLOCK);
    System.out.printf(
        "ServerClock: %d tests in %d ms (slowest first): %s%n",
        results.size(), (System.nanoTime() - start) / 1_000_000, LAST_DURATIONS);
    requireAllPassed(
        SERVER_CLOCK,
        results,
        Set.of(
            "required_8_2_withoutServerClockTimeIsJudgedByNowAlone",
            "untested_9_4_unreachableStorageThrowsStoreUnavailableException"));
    assertThat(results).containsKey("optional_8_1_serverClockIgnoresTheGivenNow");
  }

  /**
   * The tests each mutant must fail in every run of the whole contract (the bug is reached
   * deterministically). The mutants caught by a race or a random history (empty here) must still
   * fail some test; their rules are required by the targeted tests above, which retry.
   */
  private static final Map<String, Set<String>> MUST_FAIL =
      Map.ofEntries(
          Map.entry("CheckThenInsert", Set.of()),
          Map.entry("FenceDrawnBeforeInstall", Set.of()),
          Map.entry(
              "NoFencing",
              Set.of(
                  "required_3_2_staleOwnerCannotWriteAfterATakeover",
                  "required_3_4_writesWithoutTheCurrentFenceChangeNothing")),
          Map.entry("BinaryState", Set.of("required_1_2_sameRequestWhileTheLeaseIsLiveIsInFlight")),
          Map.entry(
              "NeverExpires",
              Set.of(
                  "required_4_1_leaseExpiresExactlyAtItsEnd",
                  "required_4_3_completedRecordCountsAsAbsentOnceTheWindowPassed")),
          Map.entry(
              "FenceReset",
              Set.of("required_3_1_fenceGrowsAcrossRelease", "required_3_1_fenceGrowsAcrossPurge")),
          Map.entry("LeaseOffByOne", Set.of("required_4_1_leaseExpiresExactlyAtItsEnd")),
          Map.entry(
              "TakeoverByAnyRequest",
              Set.of("required_1_5_otherRequestIsMismatchEvenAfterTheLeaseExpired")),
          Map.entry("UnboundedDelete", Set.of("required_7_3_deleteExpiredWorksInBoundedBatches")),
          Map.entry(
              "LiveLeaseRequired",
              Set.of("required_3_3_ownerWhoseLeaseExpiredCanWriteUntilTakenOver")),
          Map.entry(
              "SilentBatchRenewal",
              Set.of("required_3_5_heartbeatAllRenewsOwnersAndReportsTheRefused")),
          Map.entry(
              "GenerationNotKept",
              Set.of("required_3_6_takeoversKeepTheGenerationNewRequestsBeginTheirOwn")),
          Map.entry("SortedHeaders", Set.of("required_5_1_replayIsByteForByte")),
          Map.entry(
              "LimitNotHeld",
              Set.of("required_5_5_aResponseOverTheDeclaredLimitIsRefusedAndChangesNothing")),
          Map.entry(
              "LimitRefusedAsOutage",
              Set.of("required_5_5_aResponseOverTheDeclaredLimitIsRefusedAndChangesNothing")),
          Map.entry("FlatKey", Set.of("required_6_2_recordIdentityIsExact")),
          Map.entry(
              "ListIgnoresSelection",
              Set.of("optional_11_1_listReturnsExactlyTheRecordsOfTheSelection")),
          Map.entry(
              "ListRepeatsAcrossPages", Set.of("optional_11_2_pagesNeitherRepeatNorSkipRecords")),
          Map.entry(
              "ListSkipsAcrossPages", Set.of("optional_11_2_pagesNeitherRepeatNorSkipRecords")),
          Map.entry("ListScopeAsPrefix", Set.of("optional_11_3_aScopeListsOnlyItsOwnRecords")),
          Map.entry(
              "ExtendIgnoresFence",
              Set.of("optional_11_4_extendRetentionKeepsTheRecordAndNothingElse")),
          Map.entry(
              "ExtendMovesTheWindow",
              Set.of("optional_11_4_extendRetentionKeepsTheRecordAndNothingElse")),
          Map.entry(
              "ExtendShortens",
              Set.of("optional_11_4_extendRetentionKeepsTheRecordAndNothingElse")));

  /**
   * Slow: every mutant against the whole contract, printed as a matrix (which rules catch which
   * bug), and checked: each mutant fails at least one test and every test listed for it in {@link
   * #MUST_FAIL}, each failure is a rule violation with the rule, seed and advice in its message
   * (not an exception escaping the contract), and no mutant's test aborts (an abort would hide what
   * it failed to check).
   */
  @Test
  @Tag("slow")
  void mutantMatrix() {
    Set<String> mutants = mutantNames();
    assertThat(MUST_FAIL.keySet())
        .as("the mutants with expectations (add one for every new mutant)")
        .containsExactlyInAnyOrderElementsOf(mutants);
    StringBuilder sb = new StringBuilder("Mutant matrix (failed tests, first line of message):\n");
    Map<String, String> problems = new TreeMap<>();
    for (String name : mutants) {
      sb.append(name).append('\n');
      Map<String, TestExecutionResult> results = runAgainst(name);
      Set<String> failed = new TreeSet<>();
      results.forEach(
          (test, r) -> {
            if (r.getStatus() == TestExecutionResult.Status.FAILED) {
              failed.add(test);
              Throwable t = r.getThrowable().orElseThrow();
              String msg = String.valueOf(t.getMessage());
              sb.append("  ")
                  .append(test)
                  .append(": ")
                  .append(msg.lines().findFirst().orElse(""))
                  .append('\n');
              if (!(t instanceof AssertionError)
                  || !msg.matches("(?s)^Rule \\d+\\.\\d+ violated: .*")
                  || !msg.contains("seed=")
                  || !msg.contains("If this fails, check")) {
                problems.put(name + "#" + test, "not a rule violation with seed and advice: " + t);
              }
            } else if (r.getStatus() == TestExecutionResult.Status.ABORTED
                && !test.startsWith("untested_")
                && !test.startsWith("optional_")) {
              problems.put(
                  name + "#" + test,
                  "aborted: " + r.getThrowable().map(Throwable::toString).orElse("?"));
            }
          });
      if (failed.isEmpty()) {
        problems.put(name, "failed no test of the contract");
      }
      for (String test : MUST_FAIL.get(name)) {
        if (!failed.contains(test)) {
          problems.put(
              name + "#" + test, "passed (or did not run), but the mutant breaks its rule");
        }
      }
    }
    System.out.println(sb);
    assertThat(problems).as("what the mutant matrix got wrong; the matrix:%n%s", sb).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------------------------

  /**
   * Every test of the run must have passed, but for {@code expectedSkips} (which must have been
   * skipped): a test that failed or aborted checked nothing, and a run whose tests all aborted must
   * not count as a pass.
   */
  static void requireAllPassed(
      String store, Map<String, TestExecutionResult> results, Set<String> expectedSkips) {
    assertThat(results).as("the tests %s ran", store).isNotEmpty();
    Map<String, String> notPassed = new TreeMap<>();
    results.forEach(
        (name, r) -> {
          boolean expected =
              expectedSkips.contains(name)
                  ? r.getStatus() == TestExecutionResult.Status.ABORTED
                  : r.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
          if (!expected) {
            notPassed.put(
                name, r.getStatus() + ": " + r.getThrowable().map(Throwable::toString).orElse("?"));
          }
        });
    assertThat(notPassed)
        .as(
            "the tests of %s that did not pass (an aborted test checked nothing; expected skips"
                + " only: %s)",
            store, expectedSkips)
        .isEmpty();
  }

  /**
   * Runs {@code supplier} with the system property {@code name} set to {@code value}, then restores
   * it.
   */
  private static <T> T withKnob(String name, String value, Supplier<T> supplier) {
    String before = System.getProperty(name);
    System.setProperty(name, value);
    try {
      return supplier.get();
    } finally {
      if (before == null) {
        System.clearProperty(name);
      } else {
        System.setProperty(name, before);
      }
    }
  }

  /**
   * For a test that catches its mutant by chance (a race the scheduler must produce, or a random
   * history that must happen to hit the bug): the test must fail in at least one of {@code runs}
   * runs, with the rule named. Each run draws new seeds, so a miss is not repeated; a correct
   * contract catches these mutants in nearly every run, and this only keeps a rare unlucky schedule
   * from failing the build.
   */
  static void requireFailureInSomeRun(String mutant, String test, String fragment, int runs) {
    TestExecutionResult result = null;
    for (int i = 0; i < runs; i++) {
      Map<String, TestExecutionResult> results = runAgainst(mutant, test);
      assertThat(results).as("the contract has a test named %s", test).containsKey(test);
      result = results.get(test);
      if (result.getStatus() == TestExecutionResult.Status.FAILED) {
        break;
      }
    }
    assertThat(result.getStatus())
        .as("%s against %s (in %d run(s))", test, mutant, runs)
        .isEqualTo(TestExecutionResult.Status.FAILED);
    Throwable failure = result.getThrowable().orElseThrow();
    assertThat(failure)
        .as("the failure of %s against %s", test, mutant)
        .isInstanceOf(AssertionError.class);
    assertThat(failure.getMessage())
        .contains(fragment)
        .containsPattern("^Rule \\d+\\.\\d+ violated: ")
        .contains("seed=")
        .contains("If this fails, check");
  }

  /**
   * The durations of the tests of the last {@link #run}, slowest first, for the printed reports.
   */
  private static final List<String> LAST_DURATIONS = new ArrayList<>();

  /**
   * Runs the named tests (all but those tagged slow, when none is named) of {@link MutantContract}
   * against the store called {@code store}; results by method name.
   */
  static Map<String, TestExecutionResult> runAgainst(String store, String... tests) {
    return run(MutantContract.class, Map.of(STORE, store), tests);
  }

  /**
   * Runs the named tests (all but those tagged slow, when none is named) of {@code contract}, with
   * {@code parameters} for the launcher; results by method name.
   */
  static Map<String, TestExecutionResult> run(
      Class<?> contract, Map<String, String> parameters, String... tests) {
    Set<String> wanted = Set.copyOf(Arrays.asList(tests));
    PostDiscoveryFilter only =
        descriptor ->
            FilterResult.includedIf(
                wanted.isEmpty() || !isTest(descriptor) || wanted.contains(methodName(descriptor)));
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(contract))
            .filters(only, TagFilter.excludeTags("slow"))
            .configurationParameter(INSIDE_SELF_TEST, "true")
            .configurationParameters(parameters)
            .build();
    Map<String, TestExecutionResult> results = new TreeMap<>();
    Map<String, Long> started = new HashMap<>();
    Map<String, Long> took = new HashMap<>();
    Launcher launcher = LauncherFactory.create();
    launcher.execute(
        request,
        new TestExecutionListener() {
          @Override
          public void executionStarted(TestIdentifier id) {
            started.put(id.getUniqueId(), System.nanoTime());
          }

          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest() && id.getSource().orElse(null) instanceof MethodSource m) {
              results.put(m.getMethodName(), result);
              took.put(
                  m.getMethodName(),
                  (System.nanoTime() - started.get(id.getUniqueId())) / 1_000_000);
            }
          }

          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest() && id.getSource().orElse(null) instanceof MethodSource m) {
              results.put(
                  m.getMethodName(),
                  TestExecutionResult.aborted(new IllegalStateException(reason)));
            }
          }
        });
    LAST_DURATIONS.clear();
    took.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> LAST_DURATIONS.add(e.getKey() + "=" + e.getValue() + "ms"));
    return results;
  }

  private static boolean isTest(TestDescriptor d) {
    return d.isTest();
  }

  private static String methodName(TestDescriptor d) {
    return d.getSource().orElse(null) instanceof MethodSource m ? m.getMethodName() : "";
  }
}
