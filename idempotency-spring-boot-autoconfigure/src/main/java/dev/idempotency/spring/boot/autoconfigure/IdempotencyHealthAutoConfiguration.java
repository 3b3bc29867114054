package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.core.IdempotencyEngine;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The store's health indicator, {@code idempotency} in Actuator's health (off with {@code
 * management.health.idempotency.enabled=false}).
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(IdempotencyEngine.class)
@ConditionalOnEnabledHealthIndicator("idempotency")
public final class IdempotencyHealthAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyHealthAutoConfiguration() {}

  /** Reads one record through the engine's store. */
  @Bean
  @ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
  KeyStoreHealthIndicator idempotencyHealthIndicator(IdempotencyEngine engine) {
    return new KeyStoreHealthIndicator(engine.store());
  }
}
