package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Reaper;
import dev.idempotency.micrometer.IdempotencyMetrics;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.boot.autoconfigure.internal.EngineExtension;
import dev.idempotency.spring.boot.autoconfigure.internal.PropertyChecks;
import dev.idempotency.spring.boot.autoconfigure.internal.PropertyMapping;
import dev.idempotency.spring.boot.autoconfigure.internal.ScheduledMaintenance;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * {@link IdempotencyMetrics} in the application's {@link MeterRegistry} (Actuator brings one): the
 * engine's listener, its claims timed, the reaper's deletions counted, and the abandoned keys
 * sampled every {@code idempotency.metrics.abandoned-sample-interval}.
 */
@AutoConfiguration(
    before = IdempotencyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({IdempotencyMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyMetricsAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyMetricsAutoConfiguration() {}

  /** The meters; the engine's listener. */
  @Bean
  @ConditionalOnMissingBean
  IdempotencyMetrics idempotencyMetrics(MeterRegistry registry, IdempotencyProperties properties) {
    return IdempotencyMetrics.builder(registry)
        .engineConfig(PropertyMapping.engineConfig(properties).build())
        .build();
  }

  /** What the meters add to the engine: the timed store, the reaper's counts, the sample. */
  @Bean
  EngineExtension idempotencyMetricsExtension(
      IdempotencyMetrics metrics, IdempotencyProperties properties) {
    IdempotencyMetricsProperties m = properties.getMetrics();
    Duration interval =
        PropertyChecks.positive(
            "idempotency.metrics.abandoned-sample-interval", m.getAbandonedSampleInterval());
    int limit =
        PropertyChecks.positive(
            "idempotency.metrics.abandoned-sample-limit", m.getAbandonedSampleLimit());
    return new EngineExtension() {
      @Override
      public KeyStore decorate(KeyStore store) {
        return metrics.timed(store);
      }

      @Override
      public void reaperRan(Reaper.Report report) {
        metrics.reaperRan(report);
      }

      @Override
      public Runnable startRequest() {
        IdempotencyMetrics.Sample sample = metrics.startRequest();
        return sample::stop;
      }

      @Override
      public List<ScheduledMaintenance.Task> tasks(IdempotencyEngine engine) {
        return List.of(
            new ScheduledMaintenance.Task(
                "abandoned-keys sample",
                interval,
                Duration.ZERO,
                () ->
                    metrics.sampleAbandoned(
                        engine.store(), engine.config().clock().instant(), limit)));
      }
    };
  }
}
