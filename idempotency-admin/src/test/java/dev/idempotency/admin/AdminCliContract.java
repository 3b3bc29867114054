package dev.idempotency.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The command line against one real store, the same for each: a record claimed with a lease of 300
 * ms and left to expire is listed, shown, left as it is by {@code release --dry-run} and released
 * by {@code release}, after which a new claim starts afresh; a record under a live lease is not
 * released; a completed record is shown without its body; {@code extend} keeps a record past its
 * retention (and its dry run keeps nothing); a store nobody listens for is exit 3. Each subclass
 * opens the store the tool opens (same table or key prefix) for the test's own claims and looks, on
 * the engine's clock, so that the test can reap as of days from now.
 */
@Timeout(60)
abstract class AdminCliContract {
  private static final Fingerprint FP = Fingerprint.of("req".getBytes(StandardCharsets.UTF_8));
  private static final String SCOPE = "tenant \"one\"";
  private static final ObjectMapper JSON = new ObjectMapper();

  private KeyStore store;

  /** Opens the test's store over fresh, empty records of its own (a new table or key prefix). */
  abstract KeyStore openStore() throws Exception;

  /** Closes the test's store and deletes its records. */
  abstract void dropStore() throws Exception;

  /** The options that make the tool open the same records as {@link #openStore}. */
  abstract List<String> storeOptions();

  /** The environment the tool runs with (a password, credentials). */
  Map<String, String> env() {
    return Map.of();
  }

  /** The options of the same store at {@code 127.0.0.1:port}, where nothing listens. */
  abstract List<String> unreachableStoreOptions(int port);

  @BeforeEach
  void open() throws Exception {
    store = openStore();
  }

  @AfterEach
  void drop() throws Exception {
    dropStore();
  }

  @Test
  void listsShowsAndReleasesAnAbandonedRecordThatIsThenClaimedAfresh() throws Exception {
    RecordId stuck = RecordId.of(SCOPE, "stuck-1");
    assertThat(claim(stuck, Duration.ofMillis(300))).isInstanceOf(ClaimOutcome.Claimed.class);
    assertThat(claim(RecordId.of(SCOPE, "live-1"), Duration.ofMinutes(5)))
        .isInstanceOf(ClaimOutcome.Claimed.class);
    awaitAbandoned(stuck);

    Run list = run("list", "--selection", "ABANDONED", "--scope", SCOPE, "--json");
    assertThat(list.code).as(list.err).isZero();
    JsonNode page = JSON.readTree(list.out);
    assertThat(page.get("records")).hasSize(1);
    JsonNode listed = page.get("records").get(0);
    assertThat(listed.get("scope").asString()).isEqualTo(SCOPE);
    assertThat(listed.get("key").asString()).isEqualTo("stuck-1");
    assertThat(listed.get("state").asString()).isEqualTo("IN_FLIGHT");
    assertThat(listed.get("fence").asLong()).isEqualTo(lookup(stuck).fence().value());
    assertThat(page.get("next").isNull()).isTrue();

    Run table = run("list", "--scope", SCOPE);
    assertThat(table.code).isZero();
    assertThat(table.out).contains("stuck-1").endsWith("1 record\n").doesNotContain("live-1");

    Run show = run("show", "--scope", SCOPE, "--key", "stuck-1");
    assertThat(show.code).isZero();
    assertThat(show.out).contains("IN_FLIGHT").contains("stuck-1");

    Run missing = run("show", "--scope", SCOPE, "--key", "nobody");
    assertThat(missing.code).isEqualTo(AdminCli.REFUSED);
    assertThat(missing.err).contains("no record");

    FenceToken before = lookup(stuck).fence();
    Run dry = release("stuck-1", "--dry-run");
    assertThat(dry.code).as(dry.err).isZero();
    assertThat(dry.out).startsWith("dry run: would be RELEASED");
    RecordSnapshot afterDry = lookup(stuck);
    assertThat(afterDry.state()).isEqualTo(KeyState.IN_FLIGHT);
    assertThat(afterDry.fence()).isEqualTo(before);
    assertThat(RecordSelection.ABANDONED.matches(afterDry, Instant.now())).isTrue();

    Run release = release("stuck-1", "--json");
    assertThat(release.code).as(release.err).isZero();
    JsonNode result = JSON.readTree(release.out);
    assertThat(result.get("status").asString()).isEqualTo("RELEASED");
    assertThat(result.get("dryRun").asBoolean()).isFalse();
    assertThat(store.lookup(stuck)).isEmpty();

    Run again = release("stuck-1");
    assertThat(again.code).isEqualTo(AdminCli.REFUSED);
    assertThat(again.out).startsWith("NOT_FOUND");

    ClaimOutcome fresh = claim(stuck, Duration.ofMinutes(1));
    assertThat(fresh).isInstanceOf(ClaimOutcome.Claimed.class);
    ClaimOutcome.Claimed won = (ClaimOutcome.Claimed) fresh;
    assertThat(won.takeover()).as("a fresh claim, not a takeover of the released record").isFalse();
    assertThat(won.fence().value()).isGreaterThan(before.value());
  }

  @Test
  void aLiveLeaseIsNotReleasedNorWouldBe() throws Exception {
    RecordId live = RecordId.of(SCOPE, "live-1");
    assertThat(claim(live, Duration.ofMinutes(5))).isInstanceOf(ClaimOutcome.Claimed.class);
    FenceToken fence = lookup(live).fence();

    Run dry = release("live-1", "--dry-run");
    assertThat(dry.code).isEqualTo(AdminCli.REFUSED);
    assertThat(dry.out).contains("LEASE_LIVE");

    Run refused = release("live-1", "--json");
    assertThat(refused.code).isEqualTo(AdminCli.REFUSED);
    JsonNode result = JSON.readTree(refused.out);
    assertThat(result.get("status").asString()).isEqualTo("LEASE_LIVE");
    assertThat(result.get("dryRun").asBoolean()).isFalse();

    RecordSnapshot after = lookup(live);
    assertThat(after.state()).isEqualTo(KeyState.IN_FLIGHT);
    assertThat(after.fence()).isEqualTo(fence);
  }

  @Test
  void showGivesACompletedRecordsStatusAndSizeButNotItsBody() throws Exception {
    RecordId done = RecordId.of(SCOPE, "done-1");
    ClaimOutcome.Claimed won = (ClaimOutcome.Claimed) claim(done, Duration.ofMinutes(1));
    String body = "{\"card\":\"4111-secret-body\"}";
    store.complete(done, won.fence(), StoredResponse.ofUtf8(201, body), Instant.now());

    Run show = run("show", "--scope", SCOPE, "--key", "done-1", "--json");
    assertThat(show.code).as(show.err).isZero();
    JsonNode record = JSON.readTree(show.out);
    assertThat(record.get("state").asString()).isEqualTo("COMPLETE");
    assertThat(record.get("status").asInt()).isEqualTo(201);
    assertThat(record.get("responseBytes").asLong())
        .isEqualTo(body.getBytes(StandardCharsets.UTF_8).length);
    assertThat(show.out).doesNotContain("secret-body");

    Run table = run("show", "--scope", SCOPE, "--key", "done-1");
    assertThat(table.out).contains("COMPLETE").doesNotContain("secret-body");

    Run release = release("done-1");
    assertThat(release.code).isEqualTo(AdminCli.REFUSED);
    assertThat(release.out).startsWith("COMPLETE");
    assertThat(lookup(done).state()).isEqualTo(KeyState.COMPLETE);
  }

  @Test
  void extendKeepsARecordPastItsRetentionWhileItsDryRunKeepsNothing() throws Exception {
    RecordId kept = RecordId.of(SCOPE, "kept-1");
    RecordId dry = RecordId.of(SCOPE, "dry-1");
    RecordId live = RecordId.of(SCOPE, "live-1");
    completed(kept);
    completed(dry);
    assertThat(claim(live, Duration.ofMinutes(5))).isInstanceOf(ClaimOutcome.Claimed.class);
    FenceToken liveFence = lookup(live).fence();

    Run wouldKeep = extend("dry-1", "--keep-for", "P7D", "--dry-run");
    assertThat(wouldKeep.code).as(wouldKeep.err).isZero();
    assertThat(wouldKeep.out).startsWith("dry run: would be EXTENDED").contains("nothing changed");

    Run keep = extend("kept-1", "--keep-for", "P7D", "--json");
    assertThat(keep.code).as(keep.err).isZero();
    JsonNode result = JSON.readTree(keep.out);
    assertThat(result.get("status").asString()).isEqualTo("EXTENDED");
    assertThat(result.get("dryRun").asBoolean()).isFalse();
    assertThat(lookup(kept).state()).isEqualTo(KeyState.COMPLETE);

    Run keepLive = extend("live-1", "--keep-until", Instant.now().plus(Duration.ofDays(3)) + "");
    assertThat(keepLive.code).as(keepLive.err).isZero();
    assertThat(keepLive.out).startsWith("EXTENDED");
    RecordSnapshot liveAfter = lookup(live);
    assertThat(liveAfter.state()).isEqualTo(KeyState.IN_FLIGHT);
    assertThat(liveAfter.fence()).as("a live owner keeps its fence").isEqualTo(liveFence);

    Run missing = extend("nobody", "--keep-for", "P7D");
    assertThat(missing.code).isEqualTo(AdminCli.REFUSED);
    assertThat(missing.out).startsWith("NOT_FOUND");

    // reaped as of four days from now with a retention of one hour: the dry run kept nothing, the
    // extension keeps its record until seven days from now, and no longer
    Instant inFourDays = Instant.now().plus(Duration.ofDays(4));
    store.deleteExpired(inFourDays, Duration.ofHours(1), 100);
    assertThat(store.lookup(dry)).as("the record the dry run named").isEmpty();
    assertThat(store.lookup(kept)).as("the record kept for seven days").isPresent();
    store.deleteExpired(inFourDays.plus(Duration.ofDays(4)), Duration.ofHours(1), 100);
    assertThat(store.lookup(kept)).as("the record kept for seven days, after eight").isEmpty();
  }

  @Test
  void aStoreNobodyListensForExitsThree() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    List<String> args = new ArrayList<>(List.of("list"));
    args.addAll(unreachableStoreOptions(port));
    Run run = run(args);
    assertThat(run.code).as(run.err).isEqualTo(AdminCli.UNAVAILABLE);
    assertThat(run.err).contains("the store is unavailable");
  }

  private void completed(RecordId id) {
    ClaimOutcome.Claimed won = (ClaimOutcome.Claimed) claim(id, Duration.ofMinutes(1));
    store.complete(id, won.fence(), StoredResponse.ofUtf8(201, "{}"), Instant.now());
  }

  private Run extend(String key, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of("extend", "--scope", SCOPE, "--key", key, "--reason", "ticket 4711"));
    args.addAll(List.of(more));
    args.addAll(storeOptions());
    return run(args);
  }

  private ClaimOutcome claim(RecordId id, Duration lease) {
    return store.claim(new ClaimRequest(id, FP, Instant.now(), lease, Duration.ofHours(24)));
  }

  /** Waits until the store itself lists the record as abandoned: its lease ran out. */
  private void awaitAbandoned(RecordId id) throws InterruptedException {
    while (store
        .list(RecordQuery.of(RecordSelection.ABANDONED, Instant.now(), 10).inScope(Scope.of(SCOPE)))
        .records()
        .stream()
        .noneMatch(r -> r.id().equals(id))) {
      Thread.sleep(50); // the class's @Timeout bounds the wait
    }
  }

  private RecordSnapshot lookup(RecordId id) {
    Optional<RecordSnapshot> seen = store.lookup(id);
    assertThat(seen).as("record " + id).isPresent();
    return seen.get();
  }

  private Run release(String key, String... more) {
    List<String> args =
        new ArrayList<>(List.of("release", "--scope", SCOPE, "--key", key, "--reason", "refunded"));
    args.addAll(List.of(more));
    args.addAll(storeOptions());
    return run(args);
  }

  private Run run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(storeOptions());
    return run(all);
  }

  record Run(int code, String out, String err) {}

  /** The command line's entry in this JVM, with the environment a script would set. */
  private Run run(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        AdminCli.run(
            args.toArray(String[]::new),
            env(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
