package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.CompletionOutageGate;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outage gate ({@link CompletionOutageGate}) on one {@code redis-server} of the test's own: an
 * outage while the owners store their responses, shorter than the lease, runs each key's work once
 * and leaves none unrun. Three application instances ({@link GateInstance}), each with its own
 * client, connection, store and engine: the owners' and two that send duplicates of every key
 * through the outage and for a lease after it (a record left in flight would be taken over then,
 * and its work run again); every record is {@code COMPLETE} at the end. The store's command timeout
 * (500 ms) makes a frozen server's calls fail well within the engine's lease safety margin (1.5 s
 * of the 15 s lease renewed every 3 s), so the completion retries meet the server as soon as it
 * answers again. The outage the engine outlasts is shorter than the lease: the renewals fail during
 * it too, and the completion stops once the last confirmed lease runs within the safety margin, at
 * worst {@code lease - heartbeat interval - margin} (10.5 s here) after the outage began.
 */
@Timeout(120)
class RedisCompletionOutageIT {
  private static final int KEYS = 20;
  private static final Duration LEASE = Duration.ofSeconds(15);
  private static final Duration HEARTBEAT = Duration.ofSeconds(3);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
  private static final Duration OUTAGE = Duration.ofSeconds(3);

  /**
   * {@code kill -STOP} for 3 s, then {@code kill -CONT}: the server keeps its connections and
   * answers nothing; the scripts written meanwhile run when it wakes.
   */
  @Test
  void aServerFrozenWhileTheResponsesAreStoredRunsEachKeyOnce(@TempDir Path dir) throws Exception {
    try (RedisServerProcess server = RedisServerProcess.start(dir)) {
      gate(server, server::freeze, server::thaw, "frozen");
    }
  }

  /**
   * {@code kill -9}, then a restart on the same port and data after 3 s, with AOF {@code
   * appendfsync always}: every claim acknowledged before the kill is there after it, so the
   * completions retried after the restart find their records in flight under their fences. (Without
   * persistence the restart loses every record: duplicates arriving after it claim afresh and run
   * the work again; docs/stores-redis.md.)
   */
  @Test
  @Tag("slow")
  void aServerKilledWhileTheResponsesAreStoredAndRestartedOnItsAofRunsEachKeyOnce(@TempDir Path dir)
      throws Exception {
    try (RedisServerProcess server =
        RedisServerProcess.start(dir, "--appendonly", "yes", "--appendfsync", "always")) {
      gate(server, server::killDashNine, server::restart, "killed");
    }
  }

  /**
   * The same kill and restart without persistence: the restart loses every record, so the
   * completions retried after it are refused (the record is absent) and the duplicates claim afresh
   * and run the work again. Shows that the gate catches it.
   */
  @Test
  @Tag("slow")
  void aServerKilledAndRestartedWithoutPersistenceRunsKeysTwice(@TempDir Path dir)
      throws Exception {
    try (RedisServerProcess server = RedisServerProcess.start(dir)) {
      GateFigures figures = new GateFigures();
      CompletionOutageGate.Result result =
          run(server, figures.fault(server::killDashNine, server::restart), figures, "no AOF");

      assertThat(result.keysRunTwice()).as("%s", result).isPositive();
    }
  }

  private static void gate(
      RedisServerProcess server, GateFigures.Step begin, GateFigures.Step end, String what)
      throws Exception {
    GateFigures figures = new GateFigures();
    assertGateHolds(run(server, figures.fault(begin, end), figures, what), figures);
  }

  private static CompletionOutageGate.Result run(
      RedisServerProcess server, CompletionOutageGate.Fault fault, GateFigures figures, String what)
      throws Exception {
    return figures.run(
        "Redis, one server, " + what,
        listener ->
            GateInstance.standalone(server.uri(), COMMAND_TIMEOUT, LEASE, HEARTBEAT, listener),
        KEYS,
        fault,
        OUTAGE,
        LEASE.plusSeconds(1));
  }

  static void assertGateHolds(CompletionOutageGate.Result result, GateFigures figures) {
    assertThat(result.keysRunTwice()).as("keys run twice: %s", result).isZero();
    assertThat(result.keysNeverRun()).as("keys never run: %s", result).isZero();
    assertThat(result.duplicatesSent())
        .as("duplicates sent through the outage and after it")
        .isGreaterThan(2 * result.sideEffects().size());
    assertThat(figures.untilFirstReplay())
        .as("a duplicate was answered with a replay after the outage began")
        .isNotNull();
    // stored or, when the store answered too late for the lease, not known to be: never an error
    assertThat(figures.ownerAnswers().keySet())
        .as("every owner is answered with its response: %s", figures.ownerAnswers())
        .allMatch(answer -> answer.startsWith("executed"));
  }
}
