package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * $refs across files, a directory as input, and the inputs that cannot be read: each gets the
 * parser's message with its location, exit status 2, and no stack trace.
 */
class CrossFileAndUnreadableTest {
  record Run(int status, String out, String err) {}

  static Run cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        OpenApiCli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void refsIntoOtherFilesAreFollowed() {
    AuditReport report =
        OpenApiAudit.builder().build().audit(Specs.spec("multi-file/openapi.yaml"));
    Map<String, OperationReport> ops =
        report.operations().stream().collect(Collectors.toMap(OperationReport::name, o -> o));

    // the key parameter (maxLength 512) lives in parts/parameters.yaml
    OperationReport pay = ops.get("POST /payments");
    assertThat(pay.verdict()).isEqualTo(Verdict.ACCEPTS_KEY);
    assertThat(pay.key())
        .extracting(KeyDeclaration::required, KeyDeclaration::maxLength, KeyDeclaration::pattern)
        .containsExactly(true, 512, null);
    // the 409 and the 429 with Retry-After live in parts/responses.yaml: no finding about either
    assertThat(pay.findings()).extracting(Finding::code).containsExactly("key_max_length_over_255");
    // the path item lives in parts/capture.yaml
    assertThat(ops.get("POST /payments/{id}/capture").verdict()).isEqualTo(Verdict.NO_KEY);
  }

  @Test
  void aDirectoryIsReadAsItsRootDocumentsNotItsFragments() {
    AuditReport report = OpenApiAudit.builder().build().audit(Specs.spec("multi-file"));

    assertThat(report.documents()).containsExactly("openapi.yaml");
    assertThat(report.operations()).hasSize(2);
  }

  @Test
  void anInvalidDocumentGetsTheParsersMessagesWithLocations() {
    Run run = cli("check", Specs.spec("invalid.yaml").toString());

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err())
        .contains("cannot read")
        .contains("attribute info is missing")
        .contains("attribute paths.'/orders'(post).responses is missing")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void aDocumentThatIsNotYamlGetsTheLineAndColumn() {
    Run run = cli("check", Specs.spec("not-yaml.yaml").toString());

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).contains("line 2, column 7").doesNotContain("\tat ");
  }

  @Test
  void aMissingFileAFragmentAndSwaggerTwoAreRefused(@TempDir Path dir) throws IOException {
    assertThat(cli("check", dir.resolve("nope.yaml").toString()).err()).contains("no such file");
    assertThat(cli("check", Specs.spec("multi-file/parts/parameters.yaml").toString()).err())
        .contains("attribute openapi is missing");
    Path swagger2 =
        Files.writeString(
            dir.resolve("v2.yaml"), "swagger: '2.0'\ninfo: {title: x, version: '1'}\npaths: {}\n");
    Run run = cli("check", swagger2.toString());
    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).doesNotContain("\tat ");
    assertThat(cli("check", dir.toString()).err()).contains("no OpenAPI document in the directory");
  }

  @Test
  void aRemoteRefIsRefusedBeforeAnythingIsFetched(@TempDir Path dir) throws IOException {
    // a loopback address the parser would otherwise fetch: the worst answer is a request to it
    Files.createDirectories(dir.resolve("parts"));
    Files.writeString(
        dir.resolve("parts/key.yaml"),
        "Key:\n  $ref: 'http://127.0.0.1:9/admin/secrets.yaml#/Key'\n");
    Path doc =
        Files.writeString(
            dir.resolve("api.yaml"),
            """
            openapi: 3.0.3
            info: {title: t, version: '1'}
            paths:
              /a:
                post:
                  parameters: [$ref: 'parts/key.yaml#/Key']
                  responses: {'200': {description: ok}}
            """);

    assertThatThrownBy(() -> OpenApiAudit.builder().build().audit(doc))
        .isInstanceOf(OpenApiReadException.class)
        .satisfies(
            e ->
                assertThat(((OpenApiReadException) e).messages())
                    .anyMatch(
                        m -> m.contains("key.yaml: $ref http://127.0.0.1:9/admin/secrets.yaml"))
                    .anyMatch(m -> m.contains("bundle the document")));
  }

  @Test
  void malformedCommandLinesExitTwoWithTheUsage() {
    assertThat(cli().status()).isEqualTo(OpenApiCli.OK);
    assertThat(cli("--help").out()).contains("usage: openapi-check");
    Run unknown = cli("lint", "x.yaml");
    assertThat(unknown.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(unknown.err()).contains("unknown command \"lint\"").contains("usage:");
    assertThat(cli("check").err()).contains("check needs the OpenAPI document");
    assertThat(cli("check", "a.yaml", "--colour").err()).contains("unknown option --colour");
    assertThat(cli("check", "a.yaml", "--format").err()).contains("--format needs a value");
    assertThat(cli("check", Specs.spec("routes.yaml").toString(), "--format=xml").status())
        .isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(cli("check", Specs.spec("routes.yaml").toString(), "--window", "-1h").err())
        .contains("--window is a duration");
    assertThat(cli("verify", Specs.spec("routes.yaml").toString()).err())
        .contains("verify needs --base-url");
  }
}
