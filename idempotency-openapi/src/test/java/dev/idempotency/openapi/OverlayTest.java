package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static dev.idempotency.openapi.VendorDocuments.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An integrator cannot add {@code x-idempotent} to Plaid's document; an overlay beside it says what
 * they know: this read is safe, this call is keyed, this one is unsafe to retry, each with a
 * reason. A malformed overlay, or one naming an operation the document does not have, is refused
 * with the entry named.
 */
class OverlayTest {
  @TempDir Path dir;
  private String plaid;

  @BeforeEach
  void unpack() throws IOException {
    plaid = RealSpecs.unpack(dir, "plaid.com-excerpt.json.gz").toString();
  }

  private String overlay(String yaml) throws IOException {
    return Files.writeString(dir.resolve("overlay.yaml"), yaml).toString();
  }

  @Test
  void theOverlaysVerdictsReplaceTheDocumentsByOperationIdOrByMethodAndPath() throws IOException {
    String overlay =
        overlay(
            """
            operations:
              accountsGet: {verdict: safe, reason: returns the accounts; changes nothing}
              "POST /transactions/sync": {verdict: safe, reason: a cursor read of transactions}
              "post /sandbox/item/fire_webhook":
                verdict: unsafe
                reason: fires a webhook on every call
              "POST /link/token/create":
                verdict: keyed
                header: Plaid-Request-Key
                reason: our contract with Plaid
            """);

    VendorDocuments.Checked with = check(plaid, "--third-party", "--overlay", overlay);

    JsonNode accounts = with.op("POST /accounts/get");
    assertThat(accounts.get("verdict").asText()).isEqualTo("CONFIRMED_SAFE");
    assertThat(accounts.get("outcome").asText()).isEqualTo("OK");
    assertThat(accounts.get("reason").asText())
        .isEqualTo("overlay accountsGet: returns the accounts; changes nothing");
    assertThat(with.op("POST /transactions/sync").get("verdict").asText())
        .isEqualTo("CONFIRMED_SAFE");
    assertThat(with.op("POST /sandbox/item/fire_webhook").get("verdict").asText())
        .isEqualTo("DOCUMENTED_RETRY_UNSAFE");
    JsonNode token = with.op("POST /link/token/create");
    assertThat(token.get("verdict").asText()).isEqualTo("ACCEPTS_KEY");
    assertThat(token.get("key").get("name").asText()).isEqualTo("Plaid-Request-Key");
    assertThat(token.get("key").get("source").asText()).isEqualTo("OVERLAY");
    // 98 failing without it: sync, fire_webhook and the link token are settled
    assertThat(with.json().get("outcomes").get("FAILING").asInt()).isEqualTo(95);

    String md =
        cli("check", plaid, "--third-party", "--overlay", overlay, "--format", "markdown").out();
    assertThat(md)
        .contains("### Endpoints safe to retry without a key")
        .contains(
            "- `POST /accounts/get`: returns the accounts; changes nothing (from the"
                + " integrator's overlay, not the document)")
        .contains("- `POST /sandbox/item/fire_webhook`: fires a webhook on every call");
  }

  @Test
  void anEntryWithoutAReasonIsRefused() throws IOException {
    String overlay = overlay("operations:\n  accountsGet: {verdict: safe}\n");

    CrossFileAndUnreadableTest.Run run = cli("check", plaid, "--overlay", overlay);

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).contains("operations.accountsGet needs a reason");
  }

  @Test
  void anUnknownVerdictIsRefusedNamingTheChoices() throws IOException {
    String overlay = overlay("operations:\n  accountsGet: {verdict: idempotent, reason: x}\n");

    CrossFileAndUnreadableTest.Run run = cli("check", plaid, "--overlay", overlay);

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err())
        .contains(
            "operations.accountsGet.verdict must be safe, keyed or unsafe, not \"idempotent\"");
  }

  @Test
  void anEntryThatNamesNoOperationIsRefusedRatherThanIgnored() throws IOException {
    String overlay =
        overlay(
            "operations:\n  accountGet: {verdict: safe, reason: a typo}\n"
                + "  \"POST /nowhere\": {verdict: unsafe, reason: stale}\n");

    CrossFileAndUnreadableTest.Run run = cli("check", plaid, "--overlay", overlay);

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err())
        .contains("names operations the document does not have: accountGet, POST /nowhere");
  }

  @Test
  void aMissingOverlayFileIsNamed() {
    CrossFileAndUnreadableTest.Run run =
        cli("check", plaid, "--overlay", dir.resolve("no.yaml").toString());

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).contains("overlay").contains("no such file");
  }
}
