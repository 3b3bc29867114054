package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.openapi.internal.AuditRun;
import dev.idempotency.openapi.internal.DocumentReader;
import dev.idempotency.openapi.internal.Gate;
import dev.idempotency.openapi.internal.GateResult;
import dev.idempotency.openapi.internal.HttpTarget;
import dev.idempotency.openapi.internal.LiveGates;
import dev.idempotency.openapi.internal.RequestPlanner;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.JettyHarness;
import dev.idempotency.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The gates against the charges API: behind this library's filter every gate passes; behind each
 * deliberately broken layer the gate that names its anti-pattern fails (check-then-insert: the
 * concurrent duplicates, anti-pattern 3; no fingerprint: the same key with another body, 5; binary
 * state: the answer while the first still runs, 4). The window gate waits on the engine's clock,
 * moved by hand.
 */
class GatesTest {
  private static final String REQUESTS =
      """
      {"requests": [{"operation": "createCharge", "path": "/charges",
                     "body": {"amountCents": 4200, "currency": "EUR"},
                     "probe": "/charges", "slowHeaders": {"X-Slow": "1"}}]}
      """;

  @TempDir Path dir;
  private final MutableClock clock = new MutableClock();
  private ChargesApi api;
  private IdempotencyEngine engine;
  private JettyHarness server;

  private void start(ChargesApi.Layer layer, Duration window) throws Exception {
    api = new ChargesApi(layer);
    if (layer == ChargesApi.Layer.NONE) {
      engine =
          IdempotencyEngine.builder(new InMemoryKeyStore())
              .config(IdempotencyConfig.builder().clock(clock).replayWindow(window).build())
              .build();
      IdempotencyHttp http = IdempotencyHttp.builder(engine).anonymousScope(Scope.of("t")).build();
      server = JettyHarness.start(api, api.arrivals(), new IdempotencyFilter(http));
    } else {
      server = JettyHarness.start(api, api.arrivals());
    }
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (engine != null) {
      engine.close();
    }
  }

  /** {@code gates charges.yaml} against the server; each gate's status by its id. */
  private Map<String, String> gates(CrossFileAndUnreadableTest.Run run) {
    Map<String, String> statuses = new LinkedHashMap<>();
    for (String line : run.out().split("\n", -1)) {
      String[] parts = line.strip().split("\\s+", 3);
      if (line.startsWith("  ") && parts.length == 3) {
        for (Gate g : Gate.values()) {
          if (parts[1].equals(g.id())) {
            statuses.put(g.id(), parts[0]);
          }
        }
      }
    }
    return statuses;
  }

  private CrossFileAndUnreadableTest.Run cliGates(String... options) throws IOException {
    Path requests = Files.writeString(dir.resolve("requests.json"), REQUESTS);
    List<String> args =
        new ArrayList<>(
            List.of(
                "gates",
                Specs.spec("charges.yaml").toString(),
                "--base-url",
                "http://127.0.0.1:" + server.port(),
                "--requests",
                requests.toString(),
                "--timeout",
                "20s"));
    args.addAll(List.of(options));
    return cli(args.toArray(String[]::new));
  }

  @Test
  void behindTheLibrarysFilterEveryGatePasses() throws Exception {
    start(ChargesApi.Layer.NONE, Duration.ofHours(24));

    CrossFileAndUnreadableTest.Run run = cliGates("--concurrency", "64");

    assertThat(gates(run))
        .as(run.out())
        .containsEntry("replay", "PASS")
        .containsEntry("mismatch", "PASS")
        .containsEntry("concurrent", "PASS")
        .containsEntry("in_flight", "PASS")
        .containsEntry("key_syntax", "PASS")
        .containsEntry("window", "NOT_TESTED");
    assertThat(run.out())
        .contains("64 requests with one key at once")
        .contains("one ran; probe GET /charges")
        .contains("marked Idempotent-Replayed: true")
        .contains("answered in flight: 409")
        .contains("refused: a key with a space → 400, a key of 256 characters → 400, no key → 400");
    assertThat(run.status()).isEqualTo(OpenApiCli.OK);
    // one charge each: the replay's key, the 64 at once, the two in flight
    assertThat(api.charges()).isEqualTo(3);
  }

  @Test
  void asSomeoneElsesApiTheKeysToRefuseAreTheDocumentsAndNoReplayHeaderIsExpected()
      throws Exception {
    start(ChargesApi.Layer.NONE, Duration.ofHours(24));

    CrossFileAndUnreadableTest.Run run =
        cliGates("--third-party", "--gates", "replay,key_syntax,window");

    assertThat(gates(run))
        .as(run.out())
        .containsEntry("replay", "PASS")
        .containsEntry("key_syntax", "PASS")
        .containsEntry("window", "NOT_TESTED");
    assertThat(run.out())
        // one over the document's maxLength, a value its pattern refuses, and none where required
        .contains(
            "refused: a key of 256 characters → 400, the key \"has space\", which its pattern"
                + " refuses → 400, no key → 400")
        // charges.yaml declares no replay header: the replay is judged by its bytes alone
        .doesNotContain("marked Idempotent-Replayed")
        .contains("no --window: give the window the provider states");
  }

  /**
   * Each broken layer fails the gate that names its anti-pattern, and passes those that do not
   * concern it (check-then-insert has a fingerprint and an in-flight state; no fingerprint claims
   * atomically; binary state has a fingerprint).
   */
  @ParameterizedTest(name = "{0} fails {1}")
  @CsvSource({
    "CHECK_THEN_INSERT, concurrent, 'replay,mismatch',"
        + " '3: check-then-insert claiming (a TOCTOU race)', 'of them ran; probe GET /charges'",
    "NO_FINGERPRINT, mismatch, 'replay,concurrent,in_flight,key_syntax',"
        + " '5: same key, different payload, silently replayed',"
        + " 'another body with the same key got the first answer'",
    "BINARY_STATE, in_flight, 'replay,mismatch,key_syntax',"
        + " '4: binary key state with no in-flight representation', 'both ran: 2 side effects'"
  })
  void aBrokenLayerFailsTheGateThatNamesItsAntiPattern(
      ChargesApi.Layer layer, String failing, String passing, String antiPattern, String detail)
      throws Exception {
    start(layer, Duration.ofHours(24));
    List<String> passes = List.of(passing.split(",", -1));
    List<String> run = new ArrayList<>(passes);
    run.add(failing);

    CrossFileAndUnreadableTest.Run result = cliGates("--gates", String.join(",", run));

    Map<String, String> statuses = gates(result);
    assertThat(statuses).as(result.out()).containsEntry(failing, "FAIL");
    passes.forEach(g -> assertThat(statuses).as(result.out()).containsEntry(g, "PASS"));
    assertThat(result.out()).contains(detail).contains("reveals anti-pattern " + antiPattern);
    assertThat(result.status()).isEqualTo(OpenApiCli.FAILING);
  }

  /** The window gate on the library's filter, its engine's clock moved instead of waited. */
  private GateResult window(Duration stated) throws Exception {
    Path spec = Specs.spec("charges.yaml");
    List<DocumentReader.Document> documents = DocumentReader.read(spec);
    List<OperationReport> reports =
        AuditRun.run(documents, "Idempotency-Key", Set.of(), ApiOrigin.OWN, null).operations();
    Map<String, RequestPlanner.Planned> requests =
        RequestPlanner.fromFile(new ObjectMapper().readTree(REQUESTS));
    LiveGates.Settings settings =
        new LiveGates.Settings(8, stated, EnumSet.of(Gate.WINDOW), ApiOrigin.OWN, 20_000);
    try (HttpTarget target =
        HttpTarget.to(
            "http://127.0.0.1:" + server.port(), false, Duration.ofSeconds(20), Map.of())) {
      List<LiveGates.OperationResult> results =
          new LiveGates(target, settings, clock::advance).run(documents, reports, requests);
      assertThat(results).hasSize(1);
      return results.get(0).gates().get(0);
    }
  }

  @Test
  void theWindowGatePassesWhenTheStatedWindowIsTheServers() throws Exception {
    start(ChargesApi.Layer.NONE, Duration.ofSeconds(10));

    GateResult result = window(Duration.ofSeconds(10));

    assertThat(result.status()).as(result.detail()).isEqualTo(GateResult.Status.PASS);
    assertThat(result.detail()).contains("replayed PT5S after the first").contains("probe 2 → 3");
  }

  @Test
  void aKeyForgottenWithinItsStatedWindowFailsNamingAntiPattern6() throws Exception {
    start(ChargesApi.Layer.NONE, Duration.ofSeconds(4));

    GateResult result = window(Duration.ofSeconds(10));

    assertThat(result.status()).isEqualTo(GateResult.Status.FAIL);
    assertThat(result.revealsAntiPattern()).isTrue();
    assertThat(result.gate().reveals()).startsWith("anti-pattern 6:");
    assertThat(result.detail()).contains("forgotten within its stated window of PT10S");
  }

  @Test
  void aKeyStillReplayedPastItsStatedWindowFailsAsAWrongWindow() throws Exception {
    start(ChargesApi.Layer.NONE, Duration.ofSeconds(30));

    GateResult result = window(Duration.ofSeconds(10));

    assertThat(result.status()).isEqualTo(GateResult.Status.FAIL);
    assertThat(result.revealsAntiPattern()).isFalse();
    assertThat(result.detail()).contains("the window is longer than stated");
  }

  @Test
  void aHostThatIsNotLoopbackIsRefusedBeforeAnyRequest() throws Exception {
    start(ChargesApi.Layer.NONE, Duration.ofHours(24));

    CrossFileAndUnreadableTest.Run run =
        cli("gates", Specs.spec("charges.yaml").toString(), "--base-url", "http://192.0.2.1:8080");

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).contains("not loopback").contains("--force");
    assertThat(api.charges()).isZero();
  }

  @Test
  void badGateSettingsAreRefusedNamingTheOption() throws Exception {
    start(ChargesApi.Layer.NONE, Duration.ofHours(24));

    assertThat(cliGates("--concurrency", "65").err()).contains("--concurrency is 2 to 64, not 65");
    assertThat(cliGates("--gates", "replay,race").err())
        .contains("--gates names replay, mismatch, concurrent, in_flight, key_syntax or window");
    assertThat(api.charges()).isZero();
  }
}
