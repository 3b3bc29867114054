package dev.idempotency.testing;

import java.util.SplittableRandom;

/**
 * Seeded chaos: each request gets a fault with the chances of {@link Rates}, drawn from one seeded
 * random source in the order the requests arrive (so runs are repeatable in distribution;
 * concurrent clients' arrival order is not). A burst answers the request that starts it and the
 * next {@code burstLength - 1} requests, whoever sends them, all with the same status, 503 or 429.
 */
public final class RandomFaults implements FaultPlan {
  /**
   * The chance of each fault per request, and how long a burst lasts.
   *
   * @param dropAfter the chance of {@link Fault#FORWARD_THEN_DROP}
   * @param slow the chance of {@link Fault#FORWARD_SLOWED_THEN_DROP}
   * @param reset the chance of a reset, half {@link Fault#RESET_WITHOUT_FORWARDING}, half {@link
   *     Fault#FORWARD_THEN_RESET}
   * @param burst the chance that a request starts a burst of {@link Fault#ANSWER_503} or {@link
   *     Fault#ANSWER_429}
   * @param burstLength the requests in one burst
   */
  public record Rates(double dropAfter, double slow, double reset, double burst, int burstLength) {
    /**
     * Checks the rates.
     *
     * @throws IllegalArgumentException if a rate is outside [0, 1] or they add up to more than 1
     */
    public Rates {
      for (double r : new double[] {dropAfter, slow, reset, burst}) {
        if (r < 0 || r > 1) {
          throw new IllegalArgumentException(
              "fault rates must be between 0 and 1, but one was " + r);
        }
      }
      if (dropAfter + slow + reset + burst > 1) {
        throw new IllegalArgumentException(
            "fault rates must add up to at most 1, but add up to "
                + (dropAfter + slow + reset + burst));
      }
    }
  }

  private final Rates rates;
  private final SplittableRandom random;
  private int burstLeft;
  private Fault burstKind = Fault.ANSWER_503;

  /**
   * Faults at {@code rates}, drawn from a random source seeded with {@code seed}.
   *
   * @param rates the chance of each fault
   * @param seed the seed
   */
  public RandomFaults(Rates rates, long seed) {
    this.rates = rates;
    this.random = new SplittableRandom(seed);
  }

  @Override
  public synchronized Fault next() {
    if (burstLeft > 0) {
      burstLeft--;
      return burstKind;
    }
    double r = random.nextDouble();
    if (r < rates.dropAfter()) {
      return Fault.FORWARD_THEN_DROP;
    }
    r -= rates.dropAfter();
    if (r < rates.slow()) {
      return Fault.FORWARD_SLOWED_THEN_DROP;
    }
    r -= rates.slow();
    if (r < rates.reset()) {
      return random.nextBoolean() ? Fault.RESET_WITHOUT_FORWARDING : Fault.FORWARD_THEN_RESET;
    }
    r -= rates.reset();
    if (r < rates.burst()) {
      burstKind = random.nextBoolean() ? Fault.ANSWER_503 : Fault.ANSWER_429;
      burstLeft = Math.max(0, rates.burstLength() - 1);
      return burstKind;
    }
    return Fault.FORWARD;
  }
}
