package dev.idempotency.tck.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.LeaseLostException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns a broken rule into a failure message that names the rule, says what happened, and what to
 * check: "Rule 2.3 violated: 2 of 8 concurrent claims on key k1 succeeded (test=…, seed=…). Rule
 * 2.3: … If this fails, check that …". One per test; thread-safe (immutable).
 *
 * <p>A check of several facts is several assertions, one per fact ({@link #fact}, and the chains of
 * {@link #record} and {@link #won}), so that a failure names the one fact that broke, not the
 * conjunction.
 */
public final class Verifier {
  private final String testName;
  private final long seed;

  /** A verifier for one test run with {@code seed}. */
  public Verifier(String testName, long seed) {
    this.testName = testName;
    this.seed = seed;
  }

  /** The seed of this test run. */
  public long seed() {
    return seed;
  }

  /** The failure for a broken rule. */
  public AssertionError violation(Rule rule, String detail) {
    return violation(rule, detail, null, seed);
  }

  /** The failure for a broken rule, with the exception that showed it, if any. */
  public AssertionError violation(Rule rule, String detail, @Nullable Throwable cause) {
    return violation(rule, detail, cause, seed);
  }

  /**
   * The failure for a broken rule found by a history with its own seed; {@code cause} may be null.
   */
  public AssertionError violation(
      Rule rule, String detail, @Nullable Throwable cause, long historySeed) {
    String message =
        "Rule "
            + rule.id()
            + " violated: "
            + detail
            + " (test="
            + testName
            + ", seed="
            + historySeed
            + ").\nRule "
            + rule.id()
            + ": "
            + rule.text()
            + "\nIf this fails, check "
            + rule.hint()
            + "."
            + "\nReplay with -D"
            + Knobs.SEED
            + "="
            + historySeed
            + ".";
    AssertionError error = new AssertionError(message);
    if (cause != null) {
      error.initCause(cause);
    }
    return error;
  }

  /** Fails with {@code rule} unless {@code ok}. */
  public void check(boolean ok, Rule rule, Supplier<String> detail) {
    if (!ok) {
      throw violation(rule, detail.get());
    }
  }

  /**
   * Fails with {@code rule} when {@code assertion}, one AssertJ assertion about one fact, fails.
   * The message is the rule's, with the fact and AssertJ's expected and actual values as the
   * detail, on one line: "Rule 1.1 violated: after a won claim, the record's fence: expected:
   * fence#2 but was: fence#1 (test=…".
   *
   * @param fact what is asserted, in words: the situation and the fact, e.g. "after a won claim,
   *     the record's fence"
   */
  public void fact(Rule rule, String fact, Runnable assertion) {
    try {
      assertion.run();
    } catch (AssertionError e) {
      // AssertJ spreads expected and actual over lines; the first line of a rule violation should
      // say it all
      String said = String.valueOf(e.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ");
      throw violation(rule, fact + ": " + said, e);
    }
  }

  /**
   * The facts about {@code snapshot} that {@code rule} requires in {@code situation}, each its own
   * assertion.
   */
  public RecordFacts record(RecordSnapshot snapshot, Rule rule, String situation) {
    return new RecordFacts(this, snapshot, rule, situation);
  }

  /**
   * The facts about a won claim that {@code rule} requires in {@code situation}, each its own
   * assertion.
   */
  public ClaimFacts won(ClaimOutcome.Claimed claimed, Rule rule, String situation) {
    return new ClaimFacts(this, claimed, rule, situation);
  }

  /**
   * Requires {@code actual} to be byte-identical to {@code expected}, one fact at a time: the
   * status, the header names and values in order, the body's bytes ({@link Samples#identical} as
   * three assertions).
   */
  public void identical(
      StoredResponse actual, StoredResponse expected, Rule rule, String situation) {
    fact(
        rule,
        situation + ": its status",
        () -> assertThat(actual.status()).isEqualTo(expected.status()));
    fact(
        rule,
        situation + ": its headers (names and values, in order)",
        () ->
            assertThat(List.copyOf(actual.headers().entrySet()))
                .containsExactlyElementsOf(List.copyOf(expected.headers().entrySet())));
    fact(
        rule,
        situation + ": its body (" + Describe.body(expected.body()) + " expected)",
        () -> assertThat(actual.body()).isEqualTo(expected.body()));
  }

  /** Requires {@code outcome} to be Claimed. */
  public ClaimOutcome.Claimed claimed(@Nullable ClaimOutcome outcome, Rule rule, String situation) {
    if (outcome instanceof ClaimOutcome.Claimed c) {
      return c;
    }
    throw violation(
        rule,
        situation + ": expected Claimed, but the claim returned " + Describe.outcome(outcome));
  }

  /** Requires {@code outcome} to be InFlight. */
  public ClaimOutcome.InFlight inFlight(
      @Nullable ClaimOutcome outcome, Rule rule, String situation) {
    if (outcome instanceof ClaimOutcome.InFlight f) {
      return f;
    }
    throw violation(
        rule,
        situation + ": expected InFlight, but the claim returned " + Describe.outcome(outcome));
  }

  /** Requires {@code outcome} to be Completed. */
  public ClaimOutcome.Completed completed(
      @Nullable ClaimOutcome outcome, Rule rule, String situation) {
    if (outcome instanceof ClaimOutcome.Completed c) {
      return c;
    }
    throw violation(
        rule,
        situation + ": expected Completed, but the claim returned " + Describe.outcome(outcome));
  }

  /** Requires {@code outcome} to be Mismatch. */
  public ClaimOutcome.Mismatch mismatch(
      @Nullable ClaimOutcome outcome, Rule rule, String situation) {
    if (outcome instanceof ClaimOutcome.Mismatch m) {
      return m;
    }
    throw violation(
        rule,
        situation + ": expected Mismatch, but the claim returned " + Describe.outcome(outcome));
  }

  /** Requires {@code write} to succeed. */
  public void succeeds(Rule rule, String situation, Runnable write) {
    try {
      write.run();
    } catch (RuntimeException e) {
      throw violation(rule, situation + ": expected the write to succeed, but it threw " + e, e);
    }
  }

  /** Requires {@code write} to throw LeaseLostException. */
  public void leaseLost(Rule rule, String situation, Runnable write) {
    try {
      write.run();
    } catch (LeaseLostException expected) {
      return;
    } catch (RuntimeException e) {
      throw violation(rule, situation + ": expected LeaseLostException, but it threw " + e, e);
    }
    throw violation(rule, situation + ": expected LeaseLostException, but the write succeeded");
  }

  /** Requires {@code call} to throw {@code type}. */
  public void throwsA(
      Class<? extends RuntimeException> type, Rule rule, String situation, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      if (type.isInstance(e)) {
        return;
      }
      throw violation(
          rule, situation + ": expected " + type.getSimpleName() + ", but it threw " + e, e);
    }
    throw violation(
        rule,
        situation + ": expected " + type.getSimpleName() + ", but the call returned normally");
  }
}
