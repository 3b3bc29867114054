package dev.idempotency.tck.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.spi.ClaimOutcome;

/**
 * What a rule requires of one won claim, one AssertJ assertion per fact, so that a failure says
 * which fact broke: "Rule 4.2 violated: the takeover after the lease expired, resumeFrom of
 * Claimed(…): expected …". Made by {@link Verifier#won}; each method checks one fact at once and
 * returns this for the next.
 */
public final class ClaimFacts {
  private final Verifier verifier;
  private final ClaimOutcome.Claimed claimed;
  private final Rule rule;
  private final String situation;

  ClaimFacts(Verifier verifier, ClaimOutcome.Claimed claimed, Rule rule, String situation) {
    this.verifier = verifier;
    this.claimed = claimed;
    this.rule = rule;
    this.situation = situation;
  }

  private String the(String fact) {
    return situation + ", " + fact + " of " + Describe.outcome(claimed);
  }

  /** A fresh claim: not a takeover, and nothing to resume from. */
  public ClaimFacts fresh() {
    return notTakeover().noResumeFrom();
  }

  /** The claim is not a takeover. */
  public ClaimFacts notTakeover() {
    verifier.fact(rule, the("the takeover flag"), () -> assertThat(claimed.takeover()).isFalse());
    return this;
  }

  /** The claim is a takeover. */
  public ClaimFacts takeover() {
    verifier.fact(rule, the("the takeover flag"), () -> assertThat(claimed.takeover()).isTrue());
    return this;
  }

  /** The claim returns no recovery point to resume from. */
  public ClaimFacts noResumeFrom() {
    verifier.fact(rule, the("resumeFrom"), () -> assertThat(claimed.resumeFrom()).isEmpty());
    return this;
  }

  /** The claim resumes from {@code expected}. */
  public ClaimFacts resumesFrom(RecoveryPoint expected) {
    verifier.fact(
        rule, the("resumeFrom"), () -> assertThat(claimed.resumeFrom()).contains(expected));
    return this;
  }

  /** The claim's fence is greater than {@code previous}, a fence issued before for the record. */
  public ClaimFacts fenceAbove(FenceToken previous) {
    verifier.fact(
        rule, the("the fence"), () -> assertThat(claimed.fence()).isGreaterThan(previous));
    return this;
  }

  /** The claim's generation is {@code expected}. */
  public ClaimFacts generation(FenceToken expected) {
    verifier.fact(
        rule, the("the generation"), () -> assertThat(claimed.generation()).isEqualTo(expected));
    return this;
  }
}
