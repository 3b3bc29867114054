package dev.idempotency.tck;

import dev.idempotency.tck.internal.ConcurrentHistories;
import dev.idempotency.tck.internal.Knobs;
import dev.idempotency.tck.internal.SequentialHistories;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SPEC.md, section "2. Atomicity and concurrency": seeded random histories checked against the
 * reference model and the invariants (rules 2.1 and 2.6); the concurrency gate is in {@link
 * Section2Concurrency}.
 *
 * <p>{@code KeyStoreContract.HistoryRules} runs these tests against the store under test.
 */
interface Section2Histories extends ContractFixture {
  @Test
  @DisplayName("Rule 2.1: sequential random histories follow the reference model, call by call")
  default void stochastic_2_1_sequentialHistoriesFollowTheModel() throws Exception {
    SequentialHistories runner = new SequentialHistories(instances(), clock(), timing(), verify());
    for (long seed : historySeeds(Knobs.histories())) {
      runner.run(seed, 40);
    }
  }

  @Test
  @DisplayName("Rule 2.1: small concurrent histories are linearizable against the reference model")
  default void stochastic_2_1_smallConcurrentHistoriesAreLinearizable() throws Exception {
    ConcurrentHistories runner = new ConcurrentHistories(instances(), clock(), timing(), verify());
    for (long seed : historySeeds(Knobs.histories())) {
      runner.run(seed, true);
    }
  }

  @Test
  @DisplayName(
      "Rule 2.6: concurrent histories keep the fencing and one-completion-per-generation invariants")
  default void stochastic_2_6_concurrentHistoriesKeepTheInvariants() throws Exception {
    ConcurrentHistories runner = new ConcurrentHistories(instances(), clock(), timing(), verify());
    for (long seed : historySeeds(Math.max(1, Knobs.histories() / 2))) {
      runner.run(seed, false);
    }
  }

  @Test
  @Tag("slow")
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  @DisplayName("Rule 2.1 (long run): twenty times the sequential histories, five times as long")
  default void stochastic_2_1_sequentialHistoriesLongRun() throws Exception {
    SequentialHistories runner = new SequentialHistories(instances(), clock(), timing(), verify());
    for (long seed : historySeeds(Knobs.histories() * 20)) {
      runner.run(seed, 200);
    }
  }

  @Test
  @Tag("slow")
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  @DisplayName(
      "Rule 2.6 (long run): twenty times the concurrent histories, half of them also checked for 2.1")
  default void stochastic_2_6_concurrentHistoriesLongRun() throws Exception {
    ConcurrentHistories runner = new ConcurrentHistories(instances(), clock(), timing(), verify());
    for (long seed : historySeeds(Knobs.histories() * 20)) {
      runner.run(seed, (seed & 1) == 0);
    }
  }
}
