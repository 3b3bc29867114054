package dev.idempotency.tck.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A check of several facts fails on the one fact that broke, and says which, in the rule's failure
 * format.
 */
class VerifierTest {
  private static final Verifier VERIFY = new Verifier("VerifierTest", 42);
  private static final RecordId ID = Samples.id("tenant-1", "k1");
  private static final Instant LEASE_END = Instant.parse("2031-01-01T00:00:30Z");

  private static RecordSnapshot inFlight(FenceToken fence) {
    return new RecordSnapshot(
        ID,
        KeyState.IN_FLIGHT,
        Samples.fingerprint("a"),
        fence,
        Optional.of(LEASE_END),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  private static AssertionError failure(Runnable check) {
    return catchThrowableOfType(AssertionError.class, check::run);
  }

  @Test
  void aFactThatHoldsPasses() {
    assertThatCode(
            () ->
                VERIFY.fact(
                    Rule.R1_1,
                    "the state",
                    () -> assertThat(KeyState.IN_FLIGHT).isEqualTo(KeyState.IN_FLIGHT)))
        .doesNotThrowAnyException();
  }

  @Test
  void aBrokenFactFailsAsARuleViolationNamingTheFactOnItsFirstLine() {
    AssertionError e =
        failure(
            () ->
                VERIFY.fact(
                    Rule.R1_1,
                    "after a won claim, the state",
                    () -> assertThat(KeyState.COMPLETE).isEqualTo(KeyState.IN_FLIGHT)));
    String firstLine = e.getMessage().lines().findFirst().orElseThrow();
    assertThat(firstLine)
        .startsWith("Rule 1.1 violated: after a won claim, the state: ")
        .contains("expected: IN_FLIGHT")
        .contains("but was: COMPLETE")
        .contains("seed=42");
    assertThat(e.getMessage()).contains("If this fails, check " + Rule.R1_1.hint());
    assertThat(e.getCause())
        .as("AssertJ's own failure, kept as the cause")
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void recordFactsNameTheOneFactThatBroke() {
    RecordSnapshot s = inFlight(FenceToken.of(2));
    AssertionError fence =
        failure(
            () ->
                VERIFY
                    .record(s, Rule.R1_1, "after a claim")
                    .state(KeyState.IN_FLIGHT)
                    .fence(FenceToken.of(3))
                    .leaseExpiresAt(LEASE_END));
    assertThat(fence.getMessage())
        .startsWith("Rule 1.1 violated: after a claim, the fence of {")
        .contains("fence#3")
        .doesNotContain("the state of");
    AssertionError lease =
        failure(
            () ->
                VERIFY
                    .record(s, Rule.R4_7, "after a claim")
                    .state(KeyState.IN_FLIGHT)
                    .fence(FenceToken.of(2))
                    .leaseExpiresAt(LEASE_END.plusMillis(1)));
    assertThat(lease.getMessage())
        .startsWith("Rule 4.7 violated: after a claim, the lease expiry of {");
    assertThatCode(
            () ->
                VERIFY
                    .record(s, Rule.R1_1, "after a claim")
                    .state(KeyState.IN_FLIGHT)
                    .fence(FenceToken.of(2))
                    .leased()
                    .leaseExpiresAt(LEASE_END)
                    .noRecoveryPoint()
                    .noResponse()
                    .notCompleted())
        .as("every fact of the snapshot holds")
        .doesNotThrowAnyException();
  }

  @Test
  void claimFactsNameTheOneFactThatBroke() {
    ClaimOutcome.Claimed fresh = ClaimOutcome.Claimed.fresh(FenceToken.of(1));
    AssertionError takeover =
        failure(() -> VERIFY.won(fresh, Rule.R4_2, "a claim after the lease").takeover());
    assertThat(takeover.getMessage())
        .startsWith(
            "Rule 4.2 violated: a claim after the lease, the takeover flag of"
                + " Claimed(fence#1");
    AssertionError fence =
        failure(
            () ->
                VERIFY
                    .won(fresh, Rule.R3_1, "a claim after a release")
                    .fresh()
                    .fenceAbove(FenceToken.of(1)));
    assertThat(fence.getMessage())
        .startsWith("Rule 3.1 violated: a claim after a release, the fence of");
    assertThatCode(
            () ->
                VERIFY.won(fresh, Rule.R1_1, "a first claim").fresh().generation(FenceToken.of(1)))
        .doesNotThrowAnyException();
  }

  @Test
  void identicalResponsesDifferInTheFactNamed() {
    Map<String, List<String>> ab = new LinkedHashMap<>();
    ab.put("A", List.of("1"));
    ab.put("B", List.of("2"));
    Map<String, List<String>> ba = new LinkedHashMap<>();
    ba.put("B", List.of("2"));
    ba.put("A", List.of("1"));
    byte[] body = "x".getBytes(StandardCharsets.UTF_8);
    StoredResponse stored = StoredResponse.of(201, ab, body);
    assertThatCode(
            () ->
                VERIFY.identical(
                    StoredResponse.of(201, ab, body.clone()), stored, Rule.R5_1, "the replay"))
        .doesNotThrowAnyException();
    assertThat(
            failure(
                    () ->
                        VERIFY.identical(
                            StoredResponse.of(201, ba, body), stored, Rule.R5_1, "the replay"))
                .getMessage())
        .startsWith("Rule 5.1 violated: the replay: its headers (names and values, in order): ");
    assertThat(
            failure(
                    () ->
                        VERIFY.identical(
                            StoredResponse.of(201, ab, new byte[] {'y'}),
                            stored,
                            Rule.R5_1,
                            "the replay"))
                .getMessage())
        .startsWith("Rule 5.1 violated: the replay: its body (");
    assertThat(
            failure(
                    () ->
                        VERIFY.identical(
                            StoredResponse.of(200, ab, body), stored, Rule.R5_1, "the replay"))
                .getMessage())
        .startsWith("Rule 5.1 violated: the replay: its status: ");
  }
}
