package dev.idempotency.tck.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Instant;

/**
 * What a rule requires of one record snapshot, one AssertJ assertion per fact, so that a failure
 * says which fact broke: "Rule 1.1 violated: after a won claim, the fence of {…}: expected: fence#2
 * but was: fence#1". Made by {@link Verifier#record}; each method checks one fact at once and
 * returns this for the next.
 */
public final class RecordFacts {
  private final Verifier verifier;
  private final RecordSnapshot snapshot;
  private final Rule rule;
  private final String situation;

  RecordFacts(Verifier verifier, RecordSnapshot snapshot, Rule rule, String situation) {
    this.verifier = verifier;
    this.snapshot = snapshot;
    this.rule = rule;
    this.situation = situation;
  }

  private String the(String fact) {
    return situation + ", the " + fact + " of " + Describe.snapshot(snapshot);
  }

  /** The record is in {@code expected} state. */
  public RecordFacts state(KeyState expected) {
    verifier.fact(rule, the("state"), () -> assertThat(snapshot.state()).isEqualTo(expected));
    return this;
  }

  /** The record keeps the fingerprint {@code expected}. */
  public RecordFacts fingerprint(Fingerprint expected) {
    verifier.fact(
        rule, the("fingerprint"), () -> assertThat(snapshot.fingerprint()).isEqualTo(expected));
    return this;
  }

  /** The record's current fence is {@code expected}. */
  public RecordFacts fence(FenceToken expected) {
    verifier.fact(rule, the("fence"), () -> assertThat(snapshot.fence()).isEqualTo(expected));
    return this;
  }

  /** The record has a lease expiry (it is in flight). */
  public RecordFacts leased() {
    verifier.fact(
        rule, the("lease expiry"), () -> assertThat(snapshot.leaseExpiresAt()).isPresent());
    return this;
  }

  /** The record's lease expires at {@code expected}, to the millisecond. */
  public RecordFacts leaseExpiresAt(Instant expected) {
    verifier.fact(
        rule, the("lease expiry"), () -> assertThat(snapshot.leaseExpiresAt()).contains(expected));
    return this;
  }

  /** The record has no recovery point. */
  public RecordFacts noRecoveryPoint() {
    verifier.fact(
        rule, the("recovery point"), () -> assertThat(snapshot.recoveryPoint()).isEmpty());
    return this;
  }

  /** The record's recovery point is {@code expected}. */
  public RecordFacts recoveryPoint(RecoveryPoint expected) {
    verifier.fact(
        rule, the("recovery point"), () -> assertThat(snapshot.recoveryPoint()).contains(expected));
    return this;
  }

  /** The record has no response. */
  public RecordFacts noResponse() {
    verifier.fact(rule, the("response"), () -> assertThat(snapshot.response()).isEmpty());
    return this;
  }

  /**
   * The record's response is byte-identical to {@code expected}: its presence, status, headers and
   * body.
   */
  public RecordFacts response(StoredResponse expected) {
    verifier.fact(rule, the("response"), () -> assertThat(snapshot.response()).isPresent());
    verifier.identical(snapshot.response().orElseThrow(), expected, rule, the("response"));
    return this;
  }

  /** The record has a completion time. */
  public RecordFacts completed() {
    verifier.fact(
        rule, the("completion time"), () -> assertThat(snapshot.completedAt()).isPresent());
    return this;
  }

  /** The record completed at {@code expected}, to the millisecond. */
  public RecordFacts completedAt(Instant expected) {
    verifier.fact(
        rule, the("completion time"), () -> assertThat(snapshot.completedAt()).contains(expected));
    return this;
  }

  /** The record has no completion time. */
  public RecordFacts notCompleted() {
    verifier.fact(rule, the("completion time"), () -> assertThat(snapshot.completedAt()).isEmpty());
    return this;
  }
}
