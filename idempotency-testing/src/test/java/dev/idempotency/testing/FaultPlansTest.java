package dev.idempotency.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FaultPlansTest {
  private static List<Fault> draw(FaultPlan plan, int n) {
    return IntStream.range(0, n).mapToObj(i -> plan.next()).toList();
  }

  @Test
  void aScriptGivesItsFaultsInOrderThenRepeatsTheLast() {
    FaultPlan plan = new ScriptedFaults(Fault.ANSWER_503, Fault.FORWARD_THEN_DROP, Fault.FORWARD);

    assertThat(draw(plan, 5))
        .containsExactly(
            Fault.ANSWER_503, Fault.FORWARD_THEN_DROP, Fault.FORWARD, Fault.FORWARD, Fault.FORWARD);
  }

  @Test
  void anEmptyScriptIsRefused() {
    assertThatThrownBy(ScriptedFaults::new)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a script needs at least one fault");
  }

  @Test
  void ratesOutsideZeroToOneOrAddingUpToMoreThanOneAreRefused() {
    assertThatThrownBy(() -> new RandomFaults.Rates(-0.1, 0, 0, 0, 1))
        .hasMessage("fault rates must be between 0 and 1, but one was -0.1");
    assertThatThrownBy(() -> new RandomFaults.Rates(0.6, 0, 0.6, 0, 1))
        .hasMessageContaining("fault rates must add up to at most 1");
  }

  @Test
  void zeroRatesForwardEverything() {
    assertThat(draw(new RandomFaults(new RandomFaults.Rates(0, 0, 0, 0, 3), 1), 1000))
        .containsOnly(Fault.FORWARD);
  }

  /**
   * Seeded: 10,000 draws land within 2 % of each rate, and the same seed draws the same sequence.
   */
  @Test
  void eachFaultComesAtItsRateAndTheSameSeedDrawsTheSameSequence() {
    RandomFaults.Rates rates = new RandomFaults.Rates(0.3, 0.2, 0.2, 0, 1);

    List<Fault> faults = draw(new RandomFaults(rates, 42), 10_000);

    Map<Fault, Long> counts =
        faults.stream().collect(Collectors.groupingBy(f -> f, Collectors.counting()));
    assertThat(counts.get(Fault.FORWARD_THEN_DROP)).isBetween(2_800L, 3_200L);
    assertThat(counts.get(Fault.FORWARD_SLOWED_THEN_DROP)).isBetween(1_800L, 2_200L);
    assertThat(counts.get(Fault.RESET_WITHOUT_FORWARDING) + counts.get(Fault.FORWARD_THEN_RESET))
        .isBetween(1_800L, 2_200L);
    assertThat(counts.get(Fault.RESET_WITHOUT_FORWARDING)).isPositive();
    assertThat(counts.get(Fault.FORWARD_THEN_RESET)).isPositive();
    assertThat(counts.get(Fault.FORWARD)).isBetween(2_800L, 3_200L);
    assertThat(draw(new RandomFaults(rates, 42), 10_000)).isEqualTo(faults);
  }

  /**
   * Every request under a burst rate of 1 is in a burst: runs of exactly the burst's length, one
   * status each.
   */
  @Test
  void aBurstAnswersTheNextRequestsWithTheSameStatus() {
    List<Fault> faults = draw(new RandomFaults(new RandomFaults.Rates(0, 0, 0, 1, 4), 7), 400);

    assertThat(faults)
        .containsOnly(Fault.ANSWER_503, Fault.ANSWER_429)
        .contains(Fault.ANSWER_503, Fault.ANSWER_429);
    List<List<Fault>> bursts = new ArrayList<>();
    for (int i = 0; i < faults.size(); i += 4) {
      bursts.add(faults.subList(i, i + 4));
    }
    assertThat(bursts).allSatisfy(burst -> assertThat(burst).containsOnly(burst.get(0)));
  }
}
