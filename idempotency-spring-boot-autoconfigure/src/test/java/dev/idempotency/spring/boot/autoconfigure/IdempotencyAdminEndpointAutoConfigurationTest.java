package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.KeyStoreAdmin;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
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
          assertThat(endpoint.settle("tenant-1", "key-1", "release", "test", null, null))
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
                            .settle("tenant-1", "never-claimed", "release", "test", null, null))
                    .containsEntry("status", KeyStoreAdmin.Status.NOT_FOUND.name()));
  }

  @Test
  void withWritesOnAnExtendKeepsTheRecordPastItsRetention() {
    runner
        .withPropertyValues("idempotency.admin-endpoint.writes-enabled=true")
        .run(
            context -> {
              IdempotencyAdminEndpoint endpoint = context.getBean(IdempotencyAdminEndpoint.class);
              KeyStore store = context.getBean(KeyStore.class);
              RecordId id = RecordId.of("tenant-1", "key-1");
              Instant now = Instant.now();
              ClaimOutcome.Claimed owner =
                  (ClaimOutcome.Claimed)
                      store.claim(
                          new ClaimRequest(
                              id,
                              Fingerprint.of(new byte[] {1}),
                              now,
                              Duration.ofSeconds(30),
                              Duration.ofHours(24)));
              store.complete(id, owner.fence(), StoredResponse.ofUtf8(200, "done"), now);

              assertThat(endpoint.settle("tenant-1", "key-1", "extend", "audit 17", null, "P7D"))
                  .containsEntry("status", KeyStoreAdmin.Status.EXTENDED.name());
              Duration retention = Duration.ofHours(72);
              assertThat(store.deleteExpired(now.plus(retention), retention, 10))
                  .as("the reaper once the retention passed")
                  .isZero();
              assertThat(store.lookup(id)).isPresent();
              assertThat(store.deleteExpired(now.plus(Duration.ofDays(8)), retention, 10))
                  .as("the reaper a day after the seven days asked for")
                  .isEqualTo(1);
              assertThatThrownBy(
                      () -> endpoint.settle("tenant-1", "key-1", "extend", "audit", null, null))
                  .isInstanceOf(InvalidEndpointRequestException.class)
                  .hasMessageContaining("keepFor");
              assertThatThrownBy(
                      () ->
                          endpoint.settle(
                              "tenant-1", "key-1", "extend", "audit", "next monday", null))
                  .isInstanceOf(InvalidEndpointRequestException.class)
                  .hasMessageContaining("ISO-8601");
            });
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
