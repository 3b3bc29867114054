package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.JettyHarness;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify} against a test server in Jetty whose {@code PUT /ledgers/{id}} appends an entry
 * (not idempotent, whatever PUT promises) and whose {@code PUT /settings/{id}} sets a value (is):
 * the first is reported with the field that changed, the second passes. {@code PUT /journal/{id}}
 * appends but answers {@code 204} every time: only the document's {@code GET} of the same path,
 * used as the state probe, shows it. {@code DELETE /settings/{id}} answers {@code 204} and then
 * {@code 404}, as a repeated delete does. {@code PUT /flags/{id}} has no {@code GET} to probe.
 */
class VerifyTest {
  private JettyHarness server;
  private final Map<String, AtomicInteger> ledgers = new ConcurrentHashMap<>();
  private final Map<String, String> settings = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> journals = new ConcurrentHashMap<>();
  private final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    server =
        JettyHarness.start(
            new HttpServlet() {
              private static final long serialVersionUID = 1L;

              @Override
              protected void service(HttpServletRequest req, HttpServletResponse res)
                  throws IOException {
                requests.incrementAndGet();
                String path = req.getRequestURI();
                String body = new String(req.getInputStream().readAllBytes(), "UTF-8");
                res.setContentType("application/json");
                if (path.startsWith("/ledgers/")) {
                  String id = path.substring("/ledgers/".length());
                  AtomicInteger entries = ledgers.computeIfAbsent(id, k -> new AtomicInteger());
                  int n = req.getMethod().equals("PUT") ? entries.incrementAndGet() : entries.get();
                  res.getWriter()
                      .write(
                          "{\"id\":\""
                              + id
                              + "\",\"entries\":"
                              + n
                              + ",\"updatedAt\":"
                              + System.nanoTime()
                              + "}");
                } else if (path.startsWith("/settings/")) {
                  setting(req.getMethod(), path.substring("/settings/".length()), body, res);
                } else if (path.startsWith("/journal/")) {
                  AtomicInteger lines =
                      journals.computeIfAbsent(path.substring(9), k -> new AtomicInteger());
                  if (req.getMethod().equals("PUT")) {
                    lines.incrementAndGet();
                    res.setStatus(204);
                  } else {
                    res.getWriter().write("{\"entries\":" + lines.get() + "}");
                  }
                } else if (path.startsWith("/flags/") && req.getMethod().equals("PUT")) {
                  res.setStatus(204);
                } else {
                  res.setStatus(404);
                }
              }
            });
  }

  /** PUT sets, GET reads, DELETE removes: 204, then 404 once it is gone. */
  private void setting(String method, String id, String body, HttpServletResponse res)
      throws IOException {
    String value =
        switch (method) {
          case "PUT" -> {
            settings.put(id, body);
            yield body;
          }
          case "DELETE" -> settings.remove(id);
          default -> settings.get(id);
        };
    if (value == null) {
      res.setStatus(404);
    } else if (method.equals("DELETE")) {
      res.setStatus(204);
    } else {
      res.getWriter().write("{\"id\":\"" + id + "\",\"setting\":" + value + "}");
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String base() {
    return "http://127.0.0.1:" + server.port();
  }

  /** {@code verify ledger.yaml --base-url <the test server> <options>}. */
  private CrossFileAndUnreadableTest.Run verifyLedger(String... options) {
    List<String> args = new ArrayList<>(List.of("verify", Specs.spec("ledger.yaml").toString()));
    if (Arrays.stream(options).noneMatch("--base-url"::equals)) {
      args.addAll(List.of("--base-url", base()));
    }
    args.addAll(List.of(options));
    return cli(args.toArray(String[]::new));
  }

  @Test
  void anAppendingPutIsReportedWithTheFieldThatChangedAndASettingPutPasses() {
    CrossFileAndUnreadableTest.Run run = verifyLedger("--ignore", "updatedAt");

    assertThat(run.status()).isEqualTo(OpenApiCli.FAILING);
    assertThat(run.out())
        .contains("DIFFERS  PUT /ledgers/{id}")
        .contains("answer $.entries: 1 → 2")
        // the document's GET of the same path is the probe: the setting reads the same after each
        .contains("SAME     PUT /settings/{id}")
        .contains("probe /settings/acct-7 200")
        .contains("(the document's GET)")
        // no example for the path parameter: skipped, never sent half-made
        .contains("SKIPPED  PUT /reports/{id}")
        .contains("no example for the path parameter id")
        .contains("5 operations sent twice")
        .doesNotContain("updatedAt");
    // the examples were used: acct-7, and the body {"currency":"EUR"} from the schema's example
    assertThat(ledgers).containsOnlyKeys("acct-7");
    assertThat(ledgers.get("acct-7")).hasValue(2);
  }

  @Test
  void aDeleteAnswering204AndThen404IsTheSameAndItsProbeAgrees() {
    CrossFileAndUnreadableTest.Run run = verifyLedger("--ignore", "updatedAt");

    assertThat(run.out())
        .contains("SAME     DELETE /settings/{id}")
        .contains("answers 204 then 404: the usual answers of a repeated DELETE")
        .doesNotContain("answer status: 204 → 404");
    assertThat(settings).doesNotContainKey("acct-7");
  }

  @Test
  void aPutThatAppendsButAnswers204IsCaughtByTheGetOfItsPath() {
    CrossFileAndUnreadableTest.Run run = verifyLedger("--ignore", "updatedAt");

    assertThat(run.out())
        .contains("DIFFERS  PUT /journal/{id}")
        .contains("probe $.entries: 1 → 2")
        .doesNotContain("SAME     PUT /journal/{id}");
    assertThat(journals.get("j-1")).hasValue(2);
  }

  @Test
  void aPutWithNoGetToProbeIsUnprovenNotSame() {
    CrossFileAndUnreadableTest.Run run = verifyLedger("--ignore", "updatedAt");

    assertThat(run.out())
        .contains("UNPROVEN PUT /flags/{id}")
        .contains("give \"probe\" in --requests")
        .doesNotContain("SAME     PUT /flags/{id}");
  }

  @Test
  void withoutIgnoringItATimestampIsADifferenceToo() {
    CrossFileAndUnreadableTest.Run run = verifyLedger();

    assertThat(run.out()).contains("answer $.updatedAt: ");
  }

  @Test
  void aStateProbeFromTheRequestsFileIsComparedToo(@TempDir Path dir) throws IOException {
    Path requestsFile =
        Files.writeString(
            dir.resolve("requests.json"),
            """
            {"headers": {"Authorization": "Bearer test"},
             "requests": [
               {"operation": "putLedgerEntry", "path": "/ledgers/acct-9", "body": {"amountCents": 1},
                "probe": "/ledgers/acct-9"},
               {"operation": "PUT /reports/{id}", "path": "/reports/r-1", "bodyText": "x",
                "probe": "/reports/r-1"}
             ]}
            """);
    CrossFileAndUnreadableTest.Run run =
        verifyLedger("--requests", requestsFile.toString(), "--ignore", "updatedAt");

    assertThat(run.out())
        .contains("answer $.entries: 1 → 2")
        .contains("probe $.entries: 1 → 2")
        // the file's request for the operation without examples: sent, 404 both times, and so is
        // its probe
        .contains("SAME     PUT /reports/{id}");
    assertThat(ledgers).containsKey("acct-9");
  }

  @Test
  void aHostThatIsNotLoopbackIsRefusedBeforeAnyRequest() {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a real host
    CrossFileAndUnreadableTest.Run run = verifyLedger("--base-url", "http://192.0.2.1:8080");

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).contains("not loopback").contains("--force");
    assertThat(verifyLedger("--base-url", "file:///etc/passwd").err()).contains("must be http(s)");
    assertThat(requests).hasValue(0);
  }

  @Test
  void localhostIsPinnedToItsLoopbackAddress() {
    CrossFileAndUnreadableTest.Run run =
        verifyLedger("--base-url", "http://localhost:" + server.port(), "--ignore", "updatedAt");

    assertThat(run.out()).contains("sent twice to http://127.0.0.1:" + server.port());
    assertThat(run.out()).contains("SAME     PUT /settings/{id}");
  }

  @Test
  void aRequestsFilePathThatLeavesTheServerIsRefused(@TempDir Path dir) throws IOException {
    Path requestsFile =
        Files.writeString(
            dir.resolve("requests.json"),
            "{\"requests\": [{\"operation\": \"putSetting\", \"path\": \"//evil.example/x\"}]}");
    CrossFileAndUnreadableTest.Run run = verifyLedger("--requests", requestsFile.toString());

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).contains("must start with a single '/'");
    assertThat(requests).hasValue(0);
  }
}
