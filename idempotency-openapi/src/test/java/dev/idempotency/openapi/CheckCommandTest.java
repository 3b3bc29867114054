package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one command a user runs: the table, the exit status, and the three files of {@code --out}.
 */
class CheckCommandTest {
  @Test
  void failingOperationsExitOneAndAreListed() {
    CrossFileAndUnreadableTest.Run run = cli("check", Specs.spec("verdicts-3.0.yaml").toString());

    assertThat(run.status()).isEqualTo(OpenApiCli.FAILING);
    assertThat(run.out())
        .contains("FAILING  PATCH   /orders/{id}")
        .contains("FAILING key_max_length_over_255")
        .contains("14 operations:")
        .contains("4 failing, 2 with warnings.");
  }

  @Test
  void aCleanDocumentExitsZeroAndWarningsFailOnlyWhenAsked() {
    assertThat(cli("check", Specs.demo().toString()).status()).isEqualTo(OpenApiCli.OK);
    // ledger.yaml: PUTs and a DELETE without keys, warnings only
    String ledger = Specs.spec("ledger.yaml").toString();
    assertThat(cli("check", ledger).status()).isEqualTo(OpenApiCli.OK);
    assertThat(cli("check", ledger, "--fail-on-warnings").status()).isEqualTo(OpenApiCli.FAILING);
  }

  @Test
  void outWritesTheJsonTheMarkdownAndTheRouteTable(@TempDir Path dir) throws IOException {
    CrossFileAndUnreadableTest.Run run =
        cli(
            "check",
            Specs.spec("routes.yaml").toString(),
            "--out",
            dir.toString(),
            "--window",
            "48h");

    assertThat(run.status()).isEqualTo(OpenApiCli.OK);
    JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
    assertThat(json.get("headerName").asText()).isEqualTo("Idempotency-Key");
    assertThat(json.get("verdicts").get("ACCEPTS_KEY").asInt()).isEqualTo(4);
    assertThat(json.get("operations")).hasSize(9);
    JsonNode first = json.get("operations").get(1);
    assertThat(first.get("method").asText()).isEqualTo("POST");
    assertThat(first.get("path").asText()).isEqualTo("/orders");
    assertThat(first.get("key").get("required").asBoolean()).isTrue();
    assertThat(first.get("key").get("maxLength").asInt()).isEqualTo(255);

    String md = Files.readString(dir.resolve("idempotency.md"));
    assertThat(md)
        .startsWith("## Idempotency keys")
        .contains("| `POST /orders` |  | required |")
        .contains("| `PUT /orders/{id}` |  | optional |")
        .contains("1 to 255 characters of printable ASCII")
        .contains("within 48 hours")
        .contains("idempotency_key_reused")
        .contains("idempotency_request_in_flight")
        .contains("### Endpoints that are unsafe to retry")
        .contains("- `POST /files/upload`: a multipart upload")
        .contains("### Endpoints idempotent without a key")
        .contains("- `DELETE /orders/{id}`");

    assertThat(Files.readAllLines(dir.resolve("routes.txt")))
        .contains("REQUIRED POST /orders", "OPTIONAL PUT /orders/*", "OPTIONAL POST /files/upload");
  }

  @Test
  void theMarkdownKeepsHostileTextInsideItsCells() {
    OperationReport hostile =
        new OperationReport(
            "d",
            "POST",
            "/a|b`c\n## injected",
            "id|x",
            Verdict.ACCEPTS_KEY,
            "r",
            new KeyDeclaration(
                KeyDeclaration.Location.HEADER,
                "Idempotency-Key",
                true,
                KeyDeclaration.Source.DOCUMENT,
                64,
                null,
                null,
                java.util.Map.of(),
                null),
            java.util.List.of());
    AuditReport report =
        new AuditReport("Idempotency-Key", java.util.List.of("d"), java.util.List.of(hostile));

    String md = report.toMarkdown(Duration.ofMinutes(90));

    assertThat(md)
        .contains("| `POST /a\\|b'c ## injected` | `id\\|x` | required |")
        .doesNotContain("\n## injected")
        // the smaller declared maxLength is the promise integrators get
        .contains("1 to 64 characters")
        .contains("within 90 minutes");
  }
}
