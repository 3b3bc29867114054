package dev.idempotency.openapi;

import static dev.idempotency.openapi.CrossFileAndUnreadableTest.cli;
import static dev.idempotency.openapi.VendorDocuments.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two of eight vendor documents were unusable under the strict read. DigitalOcean's shares
 * parameters through {@code $ref}s into {@code paths}, which the parser misread as 82 duplicate
 * parameters: those now read, strict or not. What remains (DigitalOcean's one reference to a file
 * it does not bundle, SendGrid's dates defaulting to {@code ""}) still refuses a strict read and is
 * listed by a lenient one, which audits the rest.
 */
class LenientReadTest {
  @TempDir Path dir;

  @Test
  void parametersSharedThroughRefsIntoPathsAreReadAndTheKeyIsSeen() {
    VendorDocuments.Checked shared = check(Specs.spec("path-refs.yaml").toString());

    assertThat(shared.status()).as(shared.err()).isEqualTo(OpenApiCli.OK);
    JsonNode refund = shared.op("POST /accounts/{account_id}/refunds");
    assertThat(refund.get("verdict").asText()).isEqualTo("ACCEPTS_KEY");
    assertThat(refund.get("key").get("maxLength").asInt()).isEqualTo(255);
    // its 409 is the other path's, through a $ref into paths too: no finding about it
    assertThat(shared.codes("POST /accounts/{account_id}/refunds")).isEmpty();
  }

  @Test
  void digitalOceansSharedParametersReadAndOnlyItsMissingFileRefusesAStrictRead()
      throws IOException {
    String doc = RealSpecs.unpack(dir, "digitalocean.com.json.gz").toString();

    CrossFileAndUnreadableTest.Run strict = cli("check", doc);
    assertThat(strict.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(strict.err())
        .contains("Unable to load RELATIVE ref: models/domain_record_types.yml")
        .doesNotContain("duplicate parameter");

    VendorDocuments.Checked lenient = check(doc, "--lenient");
    assertThat(lenient.status()).isEqualTo(OpenApiCli.FAILING);
    assertThat(lenient.json().get("unread")).hasSize(1);
    assertThat(lenient.json().get("unread").get(0).asText())
        .contains("models/domain_record_types.yml");
    assertThat(lenient.json().get("operations")).hasSize(290);
    assertThat(lenient.verdicts("SAFE_METHOD")).isEqualTo(145);
    assertThat(lenient.verdicts("IDEMPOTENT_BY_METHOD")).isEqualTo(76);
    assertThat(lenient.verdicts("LIKELY_READ_ONLY")).isEqualTo(1);
    assertThat(lenient.verdicts("NO_KEY")).isEqualTo(68);
    // its 429s declare rate-limit headers, not Retry-After
    assertThat(lenient.codes("GET /v2/1-clicks")).containsExactly("no_retry_after");

    assertThat(cli("check", doc, "--lenient").out())
        .contains("Not read (lenient): the verdicts above are on the rest.")
        .contains("models/domain_record_types.yml");
  }

  @Test
  void sendGridsDatesDefaultingToEmptyRefuseAStrictReadAndAreListedByALenientOne()
      throws IOException {
    String doc = RealSpecs.unpack(dir, "sendgrid.com.json.gz").toString();

    CrossFileAndUnreadableTest.Run strict = cli("check", doc);
    assertThat(strict.status()).isEqualTo(OpenApiCli.UNUSABLE);
    assertThat(strict.err()).contains("default=`` is not of type `date`");

    VendorDocuments.Checked lenient = check(doc, "--lenient");
    assertThat(lenient.json().get("unread")).hasSize(3);
    assertThat(lenient.json().get("operations")).hasSize(334);
    assertThat(lenient.verdicts("SAFE_METHOD")).isEqualTo(154);
    assertThat(lenient.verdicts("IDEMPOTENT_BY_METHOD")).isEqualTo(66);
    assertThat(lenient.verdicts("LIKELY_READ_ONLY")).isEqualTo(4);
    assertThat(lenient.verdicts("NO_KEY")).isEqualTo(110);
  }

  @Test
  void aLenientReadAuditsWhatItReadAndAStrictOneRefuses() {
    String doc = Specs.spec("date-default.yaml").toString();

    assertThat(cli("check", doc).status()).isEqualTo(OpenApiCli.UNUSABLE);
    VendorDocuments.Checked lenient = check(doc, "--lenient");
    assertThat(lenient.status()).isEqualTo(OpenApiCli.FAILING);
    assertThat(lenient.op("POST /stats/exports").get("verdict").asText()).isEqualTo("NO_KEY");
    assertThat(lenient.json().get("unread").get(0).asText())
        .startsWith(doc + ": ")
        .contains("end_date");
  }
}
