package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static dev.idempotency.openapi.VendorDocuments.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UK Open Banking's payment initiation API declares {@code x-idempotency-key} on its 15 POSTs, with
 * its own limits. With the default header the audit says which header to pass; auditing it as
 * someone else's API holds none of this library's key rules against it, and its Markdown states
 * what the document says, not this library's answers.
 */
class ThirdPartyDocumentsTest {
  private static final String OB = "openbanking.org.uk-payment-initiation-openapi.json.gz";

  @TempDir Path dir;
  private String ob;

  @BeforeEach
  void unpack() throws IOException {
    ob = RealSpecs.unpack(dir, OB).toString();
  }

  private String openBanking() {
    return ob;
  }

  @Test
  void withTheDefaultHeaderEachPostSaysWhichHeaderItDeclares() throws IOException {
    VendorDocuments.Checked ob = check(openBanking());

    assertThat(ob.verdicts("NO_KEY")).isEqualTo(15);
    JsonNode payment = ob.op("POST /domestic-payments");
    assertThat(payment.get("reason").asText()).contains("run with --header x-idempotency-key");
    assertThat(ob.codes("POST /domestic-payments")).containsExactly("key_header_named_differently");

    CrossFileAndUnreadableTest.Run table = cli("check", openBanking());
    assertThat(table.out())
        .contains(
            "15 operations declare the key header x-idempotency-key, not Idempotency-Key: run"
                + " again with --header x-idempotency-key");
  }

  @Test
  void asOurOwnApiItsKeyPatternBreaksOurRulesAndTheTableSaysTheRulesAreOurs() throws IOException {
    VendorDocuments.Checked own = check(openBanking(), "--header", "x-idempotency-key");

    // ^(?!\s)(.*)(\S)$ admits "order 4711": this library's filter would refuse such a key
    assertThat(own.verdicts("ACCEPTS_KEY")).isEqualTo(15);
    assertThat(own.codes("POST /domestic-payments")).contains("key_pattern_admits_refused_keys");
    assertThat(cli("check", openBanking(), "--header", "x-idempotency-key").out())
        .contains("for someone else's API, run with --third-party");
  }

  @Test
  void asSomeoneElsesApiOnlyItsDocumentsRulesApply() throws IOException {
    VendorDocuments.Checked theirs =
        check(openBanking(), "--header", "x-idempotency-key", "--third-party");

    assertThat(theirs.status()).isEqualTo(OpenApiCli.OK);
    assertThat(theirs.json().get("origin").asText()).isEqualTo("THIRD_PARTY");
    assertThat(theirs.verdicts("ACCEPTS_KEY")).isEqualTo(15);
    assertThat(theirs.json().get("outcomes").get("FAILING").asInt()).isZero();
    // the one gap is in the document itself: it says nothing of a reused key's answer
    assertThat(theirs.codes("POST /domestic-payments")).containsExactly("no_conflict_response");
    assertThat(theirs.op("POST /domestic-payments").get("findings").get(0).get("message").asText())
        .doesNotContain("idempotency_key_reused");
  }

  @Test
  void theMarkdownForSomeoneElsesApiStatesWhatItsDocumentSaysAndNothingOfOurs() throws IOException {
    CrossFileAndUnreadableTest.Run run =
        cli(
            "check",
            openBanking(),
            "--header",
            "x-idempotency-key",
            "--third-party",
            "--format",
            "markdown");

    assertThat(run.out())
        .contains(
            "| `POST /domestic-payments` | `CreateDomesticPayments` | `x-idempotency-key` | yes |")
        .contains("maxLength 40, pattern `^(?!\\s)(.*)(\\S)$`")
        // the document's own words, quoted
        .contains("Every request will be processed only once per x-idempotency-key.")
        .contains("No `409` or `422` response is documented for `POST /domestic-payment-consents`")
        .contains("The document declares no header that marks a replayed answer.")
        // none of this library's contract
        .doesNotContain("idempotency_key_reused")
        .doesNotContain("idempotency_request_in_flight")
        .doesNotContain("Idempotent-Replayed")
        .doesNotContain("printable ASCII");
  }

  @Test
  void aWindowOfOursIsRefusedForSomeoneElsesMarkdown() throws IOException {
    CrossFileAndUnreadableTest.Run run =
        cli("check", openBanking(), "--third-party", "--window", "24h");

    assertThat(run.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(run.err()).contains("--window").contains("leave --window out");
  }

  @Test
  void mastodonsOneKeyedPostIsKeyedAndItsMarkAsReadIsNoRead() throws IOException {
    VendorDocuments.Checked mastodon =
        check(RealSpecs.unpack(dir, "mastodon.local-excerpt.json.gz").toString(), "--third-party");

    assertThat(mastodon.json().get("operations")).hasSize(127);
    assertThat(mastodon.op("POST /api/v1/statuses").get("verdict").asText())
        .isEqualTo("ACCEPTS_KEY");
    assertThat(mastodon.verdicts("SAFE_METHOD")).isEqualTo(59);
    assertThat(mastodon.verdicts("IDEMPOTENT_BY_METHOD")).isEqualTo(16);
    assertThat(mastodon.verdicts("NO_KEY")).isEqualTo(51);
    // "read" marks a conversation read: a write, not a read
    assertThat(mastodon.op("POST /api/v1/conversations/{id}/read").get("verdict").asText())
        .isEqualTo("NO_KEY");
  }
}
