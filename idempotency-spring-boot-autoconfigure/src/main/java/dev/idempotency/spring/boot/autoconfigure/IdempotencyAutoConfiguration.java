package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.core.Completer;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Reaper;
import dev.idempotency.event.IdempotencyListener;
import dev.idempotency.http.BodyRedactor;
import dev.idempotency.http.FingerprintStrategy;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.http.ScopeResolver;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.boot.autoconfigure.internal.DocumentedEndpoints;
import dev.idempotency.spring.boot.autoconfigure.internal.EngineExtension;
import dev.idempotency.spring.boot.autoconfigure.internal.PropertyChecks;
import dev.idempotency.spring.boot.autoconfigure.internal.PropertyMapping;
import dev.idempotency.spring.boot.autoconfigure.internal.ScheduledMaintenance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The engine over the context's {@link KeyStore}, the HTTP handler configured from {@code
 * idempotency.*}, and the reaper and completer on a schedule. Every bean steps aside for one of the
 * same type the application defines. The store comes from the application (a bean of its own wins)
 * or from {@link IdempotencyJdbcAutoConfiguration}; with no store at all, start-up fails with a
 * message that says how to provide one. The filter is {@link
 * IdempotencyServletAutoConfiguration}'s.
 */
@AutoConfiguration
@ConditionalOnClass(IdempotencyEngine.class)
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyAutoConfiguration {
  private static final System.Logger LOG =
      System.getLogger(IdempotencyAutoConfiguration.class.getName());

  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyAutoConfiguration() {}

  /** The engine; closed with the context, after the filter stopped taking requests. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  IdempotencyEngine idempotencyEngine(
      ObjectProvider<KeyStore> keyStore,
      IdempotencyProperties properties,
      ObjectProvider<IdempotencyListener> listeners,
      ObjectProvider<EngineExtension> extensions) {
    KeyStore store = keyStore.getIfUnique();
    if (store == null) {
      throw new IllegalStateException(
          "The idempotency engine needs one KeyStore bean and the context has "
              + (keyStore.stream().findAny().isPresent() ? "several" : "none")
              + ": add a DataSource (spring-boot-starter-jdbc) and idempotency-store-jdbc for the"
              + " JDBC store, or define a KeyStore bean (RedisFencedKeyStore, DynamoDbKeyStore,"
              + " InMemoryKeyStore for tests), or set idempotency.enabled=false");
    }
    IdempotencyConfig.Builder config = PropertyMapping.engineConfig(properties);
    List<IdempotencyListener> all = new ArrayList<>();
    listeners.orderedStream().forEach(all::add);
    for (EngineExtension extension : extensions.orderedStream().toList()) {
      store = extension.decorate(store);
    }
    config.listener(everyOne(List.copyOf(all)));
    return IdempotencyEngine.builder(store).config(config.build()).build();
  }

  /**
   * One listener for all of {@code listeners}; one that throws is logged and does not keep the
   * others from the event.
   */
  private static IdempotencyListener everyOne(List<IdempotencyListener> listeners) {
    if (listeners.isEmpty()) {
      return IdempotencyListener.NONE;
    }
    if (listeners.size() == 1) {
      return listeners.get(0);
    }
    return event -> {
      for (IdempotencyListener listener : listeners) {
        try {
          listener.onEvent(event);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "idempotency listener threw on " + event, e);
        }
      }
    };
  }

  /** The HTTP contract over the engine, from {@code idempotency.*} and the optional beans. */
  @Bean
  @ConditionalOnMissingBean
  IdempotencyHttp idempotencyHttp(
      IdempotencyEngine engine,
      IdempotencyProperties properties,
      ObjectProvider<ScopeResolver> scopeResolver,
      ObjectProvider<FingerprintStrategy> fingerprint,
      ObjectProvider<BodyRedactor> bodyRedactor,
      ObjectProvider<DocumentedEndpoints> documented,
      Environment environment) {
    IdempotencyHttpBuilder b = PropertyMapping.http(IdempotencyHttp.builder(engine), properties);
    DocumentedEndpoints fromDocument = documented.getIfAvailable();
    if (fromDocument != null) {
      fromDocument.rules().forEach(b::endpoint);
    } else if (environment.containsProperty("idempotency.openapi.document")) {
      throw new IllegalStateException(
          "idempotency.openapi.document is set, but idempotency-openapi is not on the class path:"
              + " add dev.idempotency:idempotency-openapi to read the endpoint rules from it");
    }
    scopeResolver.ifUnique(b::scopeResolver);
    fingerprint.ifUnique(b::fingerprint);
    bodyRedactor.ifUnique(b::bodyRedactor);
    return PropertyMapping.build(b, properties);
  }

  /**
   * The reaper (when {@code idempotency.reaper.enabled}), the completer (when the application
   * defines a {@link Completer.Resumer}) and the abandoned-keys sample (with the meters), on one
   * daemon thread from the context's start to its stop.
   */
  @Bean
  @ConditionalOnMissingBean
  ScheduledMaintenance idempotencyMaintenance(
      IdempotencyEngine engine,
      IdempotencyProperties properties,
      ObjectProvider<Completer.Resumer> resumer,
      ObjectProvider<EngineExtension> extensions) {
    List<ScheduledMaintenance.Task> tasks = new ArrayList<>();
    List<EngineExtension> extended = extensions.orderedStream().toList();
    IdempotencyReaperProperties r = properties.getReaper();
    if (r.isEnabled()) {
      Reaper[] reaper = new Reaper[1];
      PropertyChecks.set(
          "idempotency.reaper.batch-size",
          r.getBatchSize() + " (max-batches " + r.getMaxBatches() + ")",
          () ->
              reaper[0] =
                  new Reaper(engine.store(), engine.config(), r.getBatchSize(), r.getMaxBatches()));
      tasks.add(
          task(
              "idempotency.reaper.interval",
              "reaper",
              r.getInterval(),
              () -> {
                Reaper.Report report = reaper[0].runOnce();
                extended.forEach(extension -> extension.reaperRan(report));
              }));
    }
    Completer.Resumer resumes = resumer.getIfUnique();
    if (resumes != null) {
      IdempotencyCompleterProperties c = properties.getCompleter();
      Completer completer = new Completer(engine, resumes);
      int limit = PropertyChecks.positive("idempotency.completer.limit", c.getLimit());
      tasks.add(
          task(
              "idempotency.completer.interval",
              "completer",
              c.getInterval(),
              () -> completer.runOnce(limit)));
    }
    extended.forEach(extension -> tasks.addAll(extension.tasks(engine)));
    return new ScheduledMaintenance(tasks, Duration.ofSeconds(10));
  }

  private static ScheduledMaintenance.Task task(
      String property, String name, Duration interval, ScheduledMaintenance.Job job) {
    Duration checked = PropertyChecks.positive(property, interval);
    return new ScheduledMaintenance.Task(name, checked, checked, job);
  }
}
