package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.KeyStoreAdmin;
import dev.idempotency.spi.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The {@code idempotency} Actuator endpoint: present only when exposed and the engine exists, gives
 * way to the application's own bean, and refuses writes unless {@code
 * idempotency.admin-endpoint.writes-enabled=true}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdempotencyAdminEndpointAutoConfigurationTest {
  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdempotencyAutoConfiguration.class,
                  IdempotencyAdminEndpointAutoConfiguration.class))
          .withBean(KeyStore.class, InMemoryKeyStore::new)
          .withPropertyValues("management.endpoints.web.exposure.include=idempotency");

  @Test
  void anExposedEndpointListsAndRefusesWritesByDefault() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          IdempotencyAdminEndpoint endpoint = context.getBean(IdempotencyAdminEndpoint.class);
          Map<String, Object> page = endpoint.list(null, "tenant-1", 10, null);
          assertThat(page).containsEntry("selection", "ABANDONED");
          assertThat((List<?>) page.get("records")).isEmpty();
          assertThat(endpoint.settle("tenant-1", "key-1", "release", "test"))
              .containsEntry("status", "REFUSED")
              .containsEntry("detail", IdempotencyAdminEndpoint.WRITES_OFF);
        });
  }

  @Test
  void withWritesOnAReleaseReachesTheStore() {
    runner
        .withPropertyValues("idempotency.admin-endpoint.writes-enabled=true")
        .run(
            context ->
                assertThat(
                        context
                            .getBean(IdempotencyAdminEndpoint.class)
                            .settle("tenant-1", "never-claimed", "release", "test"))
                    .containsEntry("status", KeyStoreAdmin.Status.NOT_FOUND.name()));
  }

  @Test
  void backsOffWhenNotExposed() {
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=health")
        .run(context -> assertThat(context).doesNotHaveBean(IdempotencyAdminEndpoint.class));
  }

  @Test
  void backsOffWithoutTheEngine() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(IdempotencyAdminEndpointAutoConfiguration.class))
        .withPropertyValues("management.endpoints.web.exposure.include=idempotency")
        .run(context -> assertThat(context).doesNotHaveBean(IdempotencyAdminEndpoint.class));
  }

  @Test
  void givesWayToTheApplicationsBean() {
    runner
        .withBean(
            "mine",
            IdempotencyAdminEndpoint.class,
            () ->
                new IdempotencyAdminEndpoint(
                    KeyStoreAdmin.builder(
                            dev.idempotency.core.IdempotencyEngine.builder(new InMemoryKeyStore())
                                .build())
                        .build(),
                    true))
        .run(
            context ->
                assertThat(context.getBeansOfType(IdempotencyAdminEndpoint.class))
                    .containsOnlyKeys("mine"));
  }
}
