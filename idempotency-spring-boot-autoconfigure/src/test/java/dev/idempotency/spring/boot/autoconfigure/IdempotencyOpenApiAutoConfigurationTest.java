package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.spi.KeyStore;
import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code idempotency.openapi.document}: the HTTP handler's endpoint rules come from the API's
 * OpenAPI document, and a document that cannot be read fails start-up naming the property.
 */
class IdempotencyOpenApiAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdempotencyOpenApiAutoConfiguration.class, IdempotencyAutoConfiguration.class))
          .withBean(KeyStore.class, InMemoryKeyStore::new);

  private static String orders() throws Exception {
    return Path.of(
            Objects.requireNonNull(
                    IdempotencyOpenApiAutoConfigurationTest.class.getResource(
                        "/openapi/orders.yaml"))
                .toURI())
        .toString();
  }

  @Test
  void theDocumentsKeyedOperationsBecomeTheEndpointRules() throws Exception {
    runner
        .withPropertyValues("idempotency.openapi.document=" + orders())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              EndpointRule rule =
                  context.getBean(IdempotencyHttp.class).endpoints().stream()
                      .filter(r -> r.requirement() == KeyRequirement.REQUIRED)
                      .findFirst()
                      .orElseThrow();
              assertThat(rule.pathPattern()).isEqualTo("/orders");
              assertThat(rule.methods()).containsExactly("POST");
              assertThat(context.getBean(IdempotencyHttp.class).endpoints())
                  .as("no rule requires the key of the unkeyed GET")
                  .noneMatch(
                      r ->
                          r.requirement() == KeyRequirement.REQUIRED
                              && r.methods().contains("GET"));
            });
  }

  @Test
  void aDocumentThatCannotBeReadFailsStartUpNamingTheProperty() {
    runner
        .withPropertyValues("idempotency.openapi.document=/no/such/openapi.yaml")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .satisfiesAnyOf(
                        t -> assertThat(t).hasMessageContaining("idempotency.openapi.document"),
                        t -> assertThat(t.getMessage()).contains("/no/such/openapi.yaml")));
  }
}
