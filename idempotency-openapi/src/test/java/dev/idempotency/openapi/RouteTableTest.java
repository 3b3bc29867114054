package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.KeyRequirement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The route table from routes.yaml: which rule decides each concrete request, first match wins. */
class RouteTableTest {
  private static final List<EndpointRule> RULES = OpenApiRoutes.from(Specs.spec("routes.yaml"));

  /** What the filter does with a request: the first rule that matches decides. */
  private static Optional<KeyRequirement> decide(
      List<EndpointRule> rules, String method, String path) {
    return rules.stream()
        .filter(r -> r.matches(method, path))
        .findFirst()
        .map(EndpointRule::requirement);
  }

  @Test
  void declaredKeysBecomeRulesAndTemplatesMatchConcretePaths() {
    assertThat(decide(RULES, "POST", "/orders")).contains(KeyRequirement.REQUIRED);
    assertThat(decide(RULES, "PUT", "/orders/42")).contains(KeyRequirement.OPTIONAL);
    assertThat(decide(RULES, "POST", "/files/report.pdf")).contains(KeyRequirement.REQUIRED);
    // safe methods and unkeyed operations get no rule: the filter passes them through
    assertThat(decide(RULES, "GET", "/orders")).isEmpty();
    assertThat(decide(RULES, "DELETE", "/orders/42")).isEmpty();
    // not in the document at all
    assertThat(decide(RULES, "POST", "/refunds")).isEmpty();
  }

  @Test
  void aLiteralPathBesideAKeyedTemplateIsNotCaughtByIt() {
    // POST /files/upload takes no key; without its own rule, /files/* would require one
    assertThat(decide(RULES, "POST", "/files/upload")).contains(KeyRequirement.OPTIONAL);
    assertThat(RULES.indexOf(rule("/files/upload"))).isLessThan(RULES.indexOf(rule("/files/*")));
  }

  @Test
  void pathsTemplatedInPartShareAPatternAndTheStrongerRequirementWins() {
    // /exports/{name}.csv (no key) and /exports/{name}.json (required) are both /exports/*
    assertThat(decide(RULES, "POST", "/exports/x.csv")).contains(KeyRequirement.REQUIRED);
    assertThat(decide(RULES, "POST", "/exports/x.json")).contains(KeyRequirement.REQUIRED);
  }

  @Test
  void aPrefixIsPrependedAndAnotherHeaderFindsOtherRules() {
    List<EndpointRule> rules =
        OpenApiRoutes.from(Specs.spec("routes.yaml"), "Idempotency-Key", "/api/v1");
    assertThat(decide(rules, "POST", "/api/v1/orders")).contains(KeyRequirement.REQUIRED);
    assertThat(decide(rules, "POST", "/orders")).isEmpty();

    assertThatThrownBy(() -> OpenApiRoutes.from(Specs.spec("routes.yaml"), "X-Other-Key", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("on no operation")
        .hasMessageContaining("default");
    assertThatThrownBy(
            () -> OpenApiRoutes.from(Specs.spec("routes.yaml"), "Idempotency-Key", "api/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pathPrefix");
  }

  @Test
  void anUnreadableDocumentGivesNoRules() {
    assertThatThrownBy(() -> OpenApiRoutes.from(Specs.spec("invalid.yaml")))
        .isInstanceOf(OpenApiReadException.class)
        .hasMessageContaining("responses is missing");
  }

  private static EndpointRule rule(String pattern) {
    return RULES.stream().filter(r -> r.pathPattern().equals(pattern)).findFirst().orElseThrow();
  }
}
