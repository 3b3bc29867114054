package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.micrometer.IdempotencyMetrics;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.boot.autoconfigure.internal.ScheduledMaintenance;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.DelegatingStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.Filter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** The auto-configuration's conditions, bindings and checks, without a server. */
class IdempotencyAutoConfigurationTest {
  private static final AutoConfigurations OURS =
      AutoConfigurations.of(
          IdempotencyAutoConfiguration.class,
          IdempotencyJdbcAutoConfiguration.class,
          IdempotencyMetricsAutoConfiguration.class,
          IdempotencyServletAutoConfiguration.class,
          IdempotencyHealthAutoConfiguration.class);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(OURS)
          .withBean(DataSource.class, IdempotencyAutoConfigurationTest::h2)
          .withPropertyValues("idempotency.jdbc.create-schema-if-missing=true");

  private static DataSource h2() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    return h2;
  }

  @Test
  void aDataSourceGivesTheJdbcStoreTheEngineTheHandlerAndTheSchedule() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).hasSingleBean(JdbcKeyStore.class);
          assertThat(context.getBean(IdempotencyEngine.class).store())
              .isSameAs(context.getBean(KeyStore.class));
          assertThat(context).hasSingleBean(IdempotencyHttp.class);
          assertThat(context.getBean(ScheduledMaintenance.class).taskNames())
              .containsExactly("reaper");
          assertThat(context.getBean(ScheduledMaintenance.class).isRunning()).isTrue();
          assertThat(context).doesNotHaveBean(FilterRegistrationBean.class); // not a web app
        });
  }

  /**
   * {@code idempotency.endpoints[i].in-one-transaction}: unset runs the endpoint in one transaction
   * on the JDBC store and stepped on a store that cannot; {@code false} chooses stepped; {@code
   * true} insists, and fails start-up on a store that cannot.
   */
  @Test
  void anEndpointThatSaysNothingRunsInOneTransactionWhereTheStoreCanAndFalseIsStepped() {
    String[] endpoints = {
      "idempotency.endpoints[0].paths=/orders",
      "idempotency.endpoints[1].paths=/payments",
      "idempotency.endpoints[1].in-one-transaction=false",
      "idempotency.endpoints[2].paths=/seats",
      "idempotency.endpoints[2].in-one-transaction=true"
    };
    runner
        .withPropertyValues(endpoints)
        .run(
            context ->
                assertThat(context.getBean(IdempotencyHttp.class).endpoints())
                    .extracting(EndpointRule::runsInOneTransaction)
                    .containsExactly(true, false, true));
    runner
        .withBean(KeyStore.class, InMemoryKeyStore::new)
        .withPropertyValues(endpoints[0], endpoints[1], endpoints[2])
        .run(
            context ->
                assertThat(context.getBean(IdempotencyHttp.class).endpoints())
                    .extracting(EndpointRule::runsInOneTransaction)
                    .containsExactly(false, false));
    runner
        .withBean(KeyStore.class, InMemoryKeyStore::new)
        .withPropertyValues(
            "idempotency.endpoints[0].paths=/seats",
            "idempotency.endpoints[0].in-one-transaction=true")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("EndpointRule.inOneTransaction()"));
  }

  @Test
  void theApplicationsKeyStoreWinsOverTheDataSource() {
    InMemoryKeyStore own = new InMemoryKeyStore();
    runner
        .withBean(KeyStore.class, () -> own)
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(JdbcKeyStore.class);
              assertThat(context.getBean(IdempotencyEngine.class).store()).isSameAs(own);
            });
  }

  @Test
  void theApplicationsEngineWins() {
    IdempotencyEngine own = IdempotencyEngine.builder(new InMemoryKeyStore()).build();
    runner
        .withBean(IdempotencyEngine.class, () -> own)
        .run(context -> assertThat(context.getBean(IdempotencyEngine.class)).isSameAs(own));
    own.close();
  }

  /**
   * A missing table fails start-up in one line that names the property and the fix: for a table
   * name of the application's own, that the shipped migrations create the default one only.
   */
  @Test
  void aMissingTableFailsStartUpNamingThePropertyAndTheFix() {
    runner
        .withPropertyValues(
            "idempotency.jdbc.create-schema-if-missing=false",
            "idempotency.jdbc.table-name=payments_keys")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(
                        InvalidConfigurationPropertyValueException.class,
                        e -> {
                          assertThat(e.getName()).isEqualTo("idempotency.jdbc.table-name");
                          assertThat(e.getMessage())
                              .doesNotContain("\n")
                              .contains("no table \"payments_keys\"")
                              .contains("create \"idempotency_records\" only")
                              .contains("a migration of your own");
                        }));
    runner
        .withPropertyValues("idempotency.jdbc.create-schema-if-missing=false")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(
                        InvalidConfigurationPropertyValueException.class,
                        e ->
                            assertThat(e.getMessage())
                                .contains("no table \"idempotency_records\"")
                                .contains("spring.flyway.locations")
                                .contains("classpath:db/idempotency/{vendor}")));
  }

  @Test
  void withoutAnyStoreStartUpFailsSayingHowToProvideOne() {
    new ApplicationContextRunner()
        .withConfiguration(OURS)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("needs one KeyStore bean")
                    .hasMessageContaining("idempotency.enabled=false"));
  }

  @Test
  void aMissingTableFailsStartUpUnlessTheStoreMayCreateIt() {
    runner
        .withPropertyValues("idempotency.jdbc.create-schema-if-missing=false")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("idempotency_records"));
  }

  @Test
  void disabledConfiguresNothing() {
    runner
        .withPropertyValues("idempotency.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(IdempotencyEngine.class);
              assertThat(context).doesNotHaveBean(KeyStore.class);
            });
  }

  @Test
  void propertiesBindOntoTheEngine() {
    runner
        .withPropertyValues(
            "idempotency.replay-window=2h",
            "idempotency.retention=3h",
            "idempotency.lease=12s",
            "idempotency.heartbeat-interval=3s",
            "idempotency.in-flight.mode=wait",
            "idempotency.in-flight.max-wait=2s",
            "idempotency.in-flight.poll-interval=50ms")
        .run(
            context -> {
              var config = context.getBean(IdempotencyEngine.class).config();
              assertThat(config.replayWindow()).isEqualTo(Duration.ofHours(2));
              assertThat(config.retention()).isEqualTo(Duration.ofHours(3));
              assertThat(config.lease()).isEqualTo(Duration.ofSeconds(12));
              assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
              assertThat(config.inFlightPolicy().maxWait()).isEqualTo(Duration.ofSeconds(2));
              assertThat(config.inFlightPolicy().pollInterval()).isEqualTo(Duration.ofMillis(50));
            });
  }

  @Test
  void thePropertiesDefaultsAreTheEnginesDefaults() {
    IdempotencyProperties p = new IdempotencyProperties();
    var defaults = dev.idempotency.core.IdempotencyConfig.ofDefaults();
    assertThat(p.getReplayWindow()).isEqualTo(defaults.replayWindow());
    assertThat(p.getRetention()).isEqualTo(defaults.retention());
    assertThat(p.getLease()).isEqualTo(defaults.lease());
    assertThat(p.getMaxOperationTime()).isEqualTo(defaults.maxOperationTime());
    assertThat(p.getLongestRetryChain()).isEqualTo(defaults.longestRetryChain());
    assertThat(p.getInFlight().getRetryAfter()).isEqualTo(defaults.inFlightRetryAfter());
  }

  @Test
  void aValueOutOfRangeFailsStartUpNamingItsProperty() {
    assertFailsNaming("idempotency.lease", "idempotency.lease=-5s");
    assertFailsNaming("idempotency.retention", "idempotency.retention=1h");
    assertFailsNaming(
        "idempotency.heartbeat-interval",
        "idempotency.lease=10s",
        "idempotency.heartbeat-interval=10s");
    assertFailsNaming("idempotency.endpoints[0]", "idempotency.endpoints[0].methods=GET");
    assertFailsNaming(
        "idempotency.stored-failures.exclude-statuses",
        "idempotency.stored-failures.exclude-statuses=42");
    assertFailsNaming(
        "idempotency.jdbc.statement-timeout", "idempotency.jdbc.statement-timeout=500ms");
    assertFailsNaming("idempotency.reaper.interval", "idempotency.reaper.interval=0s");
    assertFailsNaming("idempotency.max-request-body-size", "idempotency.max-request-body-size=-1B");
  }

  /**
   * A check across settings names the property the application set, with its value: a replay window
   * raised past the default retention names the window, not the retention it outgrew.
   */
  @Test
  void aCheckAcrossSettingsNamesThePropertySetWithItsValue() {
    runner
        .withPropertyValues("idempotency.replay-window=100h")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOfSatisfying(
                        InvalidConfigurationPropertyValueException.class,
                        e -> {
                          assertThat(e.getName()).isEqualTo("idempotency.replay-window");
                          assertThat(e.getValue()).isEqualTo(Duration.ofHours(100));
                          assertThat(e.getMessage())
                              .contains("idempotency.retention")
                              .doesNotContain("see the reason");
                        }));
  }

  private void assertFailsNaming(String property, String... values) {
    runner
        .withPropertyValues(values)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .as("%s", String.join(", ", values))
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .satisfies(
                        e ->
                            assertThat(((InvalidConfigurationPropertyValueException) e).getName())
                                .isEqualTo(property)));
  }

  /**
   * A stored-response size above what the store keeps fails start-up naming the property and the
   * store's limit; unset, the limit follows the store.
   */
  @Test
  void aStoredResponseSizeAboveWhatTheStoreKeepsFailsStartUpNamingIt() {
    KeyStore small =
        new DelegatingStore(new InMemoryKeyStore()) {
          @Override
          public long maxResponseBytes() {
            return 390_000;
          }
        };
    ApplicationContextRunner overSmall =
        new ApplicationContextRunner()
            .withConfiguration(OURS)
            .withBean(KeyStore.class, () -> small);
    overSmall
        .withPropertyValues("idempotency.max-stored-response-size=1MB")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("idempotency.max-stored-response-size is 1048576")
                    .hasMessageContaining("at most 390000 bytes")
                    .satisfies(
                        e ->
                            assertThat(((InvalidConfigurationPropertyValueException) e).getName())
                                .isEqualTo("idempotency.max-stored-response-size")));
    overSmall.run(
        context ->
            assertThat(context.getBean(IdempotencyHttp.class).maxStoredResponseBytes())
                .isEqualTo(390_000));
  }

  @Test
  void aMeterRegistryGivesTheMetersAndATimedStore() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyMetrics.class);
              assertThat(context.getBean(IdempotencyEngine.class).store())
                  .isNotSameAs(context.getBean(KeyStore.class))
                  .isInstanceOf(dev.idempotency.spi.TransactionalKeyStore.class);
              assertThat(context.getBean(ScheduledMaintenance.class).taskNames())
                  .containsExactly("reaper", "abandoned-keys sample");
              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .find(IdempotencyMetrics.OUTCOMES)
                          .counters())
                  .hasSize(6);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class SecurityFilterChainStandIn {
    /**
     * Spring Security's filter chain bean, by name: what SecurityFilterAutoConfiguration registers.
     */
    @Bean("springSecurityFilterChain")
    Filter springSecurityFilterChain() {
      return (request, response, chain) -> chain.doFilter(request, response);
    }
  }

  private final WebApplicationContextRunner web =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdempotencyAutoConfiguration.class,
                  IdempotencyServletAutoConfiguration.class,
                  SecurityFilterAutoConfiguration.class))
          .withUserConfiguration(SecurityFilterChainStandIn.class)
          .withBean(KeyStore.class, InMemoryKeyStore::new);

  @Test
  void theFilterIsRegisteredAfterSpringSecuritysFilterChain() {
    web.run(
        context -> {
          assertThat(context).hasNotFailed();
          FilterRegistrationBean<?> registration =
              context.getBean(
                  IdempotencyServletAutoConfiguration.REGISTRATION, FilterRegistrationBean.class);
          assertThat(registration.getFilter())
              .isInstanceOf(IdempotencyFilter.class); // no meters here
          assertThat(registration.getOrder()).isGreaterThan(-100); // security's default order
        });
  }

  /**
   * {@code idempotency.endpoints[i].methods: [post]} guards POST: through the filter the context
   * registers, a POST without a key is refused before the application runs.
   */
  @Test
  void anEndpointMethodWrittenInLowerCaseGuardsPost() {
    web.withPropertyValues(
            "idempotency.endpoints[0].paths=/payments", "idempotency.endpoints[0].methods=post")
        .run(
            context -> {
              Filter filter =
                  context
                      .getBean(
                          IdempotencyServletAutoConfiguration.REGISTRATION,
                          FilterRegistrationBean.class)
                      .getFilter();
              MockHttpServletRequest post = new MockHttpServletRequest("POST", "/payments");
              post.setServletPath("/payments");
              post.setUserPrincipal(() -> "alice");
              post.setContent("{}".getBytes(StandardCharsets.UTF_8));
              MockHttpServletResponse response = new MockHttpServletResponse();
              MockFilterChain application = new MockFilterChain();

              filter.doFilter(post, response, application);

              assertThat(response.getStatus()).isEqualTo(400);
              assertThat(response.getContentAsString()).contains("idempotency_key_missing");
              assertThat(application.getRequest()).as("the application ran").isNull();
            });
  }

  @Test
  void aFilterOrderedBeforeSecurityFailsStartUpNamingBothProperties() {
    web.withPropertyValues("idempotency.filter.order=-200")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasMessageContaining("idempotency.filter.order = -200")
                    .hasMessageContaining("spring.security.filter.order = -100"));
    web.withPropertyValues("idempotency.filter.order=-200", "spring.security.filter.order=-300")
        .run(context -> assertThat(context).hasNotFailed());
  }
}
