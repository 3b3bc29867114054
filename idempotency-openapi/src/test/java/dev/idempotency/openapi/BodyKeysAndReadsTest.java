package dev.idempotency.openapi;

import static dev.idempotency.openapi.VendorDocuments.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Square's and Plaid's keyed payment endpoints take the key in the request body: they are keyed,
 * never told to "declare the header". POSTs shaped like reads (Plaid's {@code /accounts/get},
 * Square's searches, GitHub's Markdown render) get a verdict of their own, a warning the user
 * confirms, instead of failing.
 */
class BodyKeysAndReadsTest {
  @TempDir Path dir;

  private String unpack(String name) throws IOException {
    return RealSpecs.unpack(dir, name).toString();
  }

  @Test
  void squaresPaymentsTakeTheKeyInTheBodyAndAreKeyedNotFailing() throws IOException {
    VendorDocuments.Checked square = check(unpack("squareup.com.json.gz"), "--third-party");

    JsonNode payment = square.op("POST /v2/payments");
    assertThat(payment.get("verdict").asText()).isEqualTo("ACCEPTS_KEY_IN_BODY");
    assertThat(payment.get("reason").asText())
        .contains("body property idempotency_key (required)")
        .doesNotContain("declare the header");
    assertThat(payment.get("key").get("location").asText()).isEqualTo("BODY");
    assertThat(payment.get("key").get("maxLength").asInt()).isEqualTo(45);
    // Square documents no 409 or 422; a third-party audit holds none of this library's rules
    assertThat(square.codes("POST /v2/payments")).containsExactly("no_conflict_response");
    // 35 POSTs and 4 PUTs carry idempotency_key (or, once, request_idempotence_key)
    assertThat(square.verdicts("ACCEPTS_KEY_IN_BODY")).isEqualTo(39);
    assertThat(square.withVerdict("ACCEPTS_KEY_IN_BODY"))
        .filteredOn(n -> n.startsWith("POST "))
        .hasSize(35)
        .contains("POST /v1/{location_id}/refunds");
    // an optional key is a warning: a request sent without it is not protected
    assertThat(square.codes("POST /v2/orders")).contains("body_key_optional");
  }

  @Test
  void squaresSearchesAreLikelyReadOnlyAndWhatRemainsFails() throws IOException {
    VendorDocuments.Checked square = check(unpack("squareup.com.json.gz"), "--third-party");

    assertThat(square.verdicts("LIKELY_READ_ONLY")).isEqualTo(24);
    assertThat(square.withVerdict("LIKELY_READ_ONLY"))
        .contains(
            "POST /v2/orders/search",
            "POST /v2/orders/batch-retrieve",
            "POST /v2/orders/calculate");
    assertThat(square.op("POST /v2/orders/search").get("outcome").asText()).isEqualTo("WARNING");
    // 88 POSTs: 35 keyed, 24 reads, 29 failing
    assertThat(square.verdicts("NO_KEY")).isEqualTo(29);
    assertThat(square.json().get("outcomes").get("FAILING").asInt()).isEqualTo(29);
  }

  @Test
  void plaidsTransfersAreKeyedInTheBodyAndItsReadsAreNotFailures() throws IOException {
    VendorDocuments.Checked plaid = check(unpack("plaid.com-excerpt.json.gz"), "--third-party");

    assertThat(plaid.verdicts("ACCEPTS_KEY_IN_BODY")).isEqualTo(9);
    assertThat(plaid.op("POST /transfer/recurring/create").get("key").get("required").asBoolean())
        .isTrue();
    // optional and deprecated (authorization_id is its idempotency now): two warnings
    assertThat(plaid.codes("POST /transfer/create"))
        .containsExactlyInAnyOrder(
            "body_key_optional", "body_key_deprecated", "no_conflict_response");
    // is_idempotent is a flag, not a key
    assertThat(plaid.op("POST /identity_verification/create").get("verdict").asText())
        .isEqualTo("NO_KEY");

    assertThat(plaid.verdicts("LIKELY_READ_ONLY")).isEqualTo(93);
    assertThat(plaid.withVerdict("LIKELY_READ_ONLY"))
        .contains(
            "POST /accounts/get",
            "POST /institutions/search",
            "POST /institutions/get_by_id",
            // transfer and link are nouns here, not writes
            "POST /transfer/get",
            "POST /link/token/get");
    // /asset_report/filter makes a new report: filter is not taken for a read
    assertThat(plaid.op("POST /asset_report/filter").get("verdict").asText()).isEqualTo("NO_KEY");
    // 200: 9 keyed, 93 reads to confirm, 98 failing
    assertThat(plaid.json().get("outcomes").get("FAILING").asInt()).isEqualTo(98);
  }

  /**
   * SendGrid's operationIds start with the method ({@code POST_mc-contacts-search}): that {@code
   * POST} is not a write verb, and the rest repeats the path, parameter names included ({@code
   * POST_contactdb-lists-list_id-recipients} adds recipients to a list), so the path decides.
   */
  @Test
  void sendGridsSearchesAreReadsThoughTheirOperationIdsStartWithPost() throws IOException {
    VendorDocuments.Checked sendGrid =
        check(unpack("sendgrid.com.json.gz"), "--third-party", "--lenient");

    assertThat(sendGrid.withVerdict("LIKELY_READ_ONLY"))
        .containsExactlyInAnyOrder(
            "POST /marketing/contacts/search",
            "POST /contactdb/recipients/search",
            "POST /asm/groups/{group_id}/suppressions/search",
            "POST /marketing/singlesends/search");
    assertThat(sendGrid.op("POST /marketing/contacts/search").get("reason").asText())
        .contains("its path's last segment search");
    assertThat(sendGrid.op("POST /contactdb/lists/{list_id}/recipients").get("verdict").asText())
        .isEqualTo("NO_KEY");
    assertThat(sendGrid.verdicts("NO_KEY")).isEqualTo(110);
  }

  @Test
  void githubsMarkdownRenderIsLikelyReadOnly() throws IOException {
    VendorDocuments.Checked github = check(unpack("github.com-api.github.com.json.gz"));

    assertThat(github.json().get("operations")).hasSize(845);
    assertThat(github.withVerdict("LIKELY_READ_ONLY"))
        .containsExactly("POST /markdown", "POST /markdown/raw");
    assertThat(github.verdicts("SAFE_METHOD")).isEqualTo(444);
    assertThat(github.verdicts("IDEMPOTENT_BY_METHOD")).isEqualTo(221);
    assertThat(github.verdicts("NO_KEY")).isEqualTo(178);
  }
}
