package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.core.Completer;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.KeyStoreAdmin;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotency} Actuator endpoint ({@link IdempotencyAdminEndpoint}), when Actuator is on
 * the class path, the engine exists and the endpoint is available (exposed and not disabled).
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(IdempotencyEngine.class)
@EnableConfigurationProperties(IdempotencyAdminEndpointProperties.class)
public final class IdempotencyAdminEndpointAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyAdminEndpointAutoConfiguration() {}

  /** Over the engine's store; redrive through the application's resumer, if it defines one. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint(IdempotencyAdminEndpoint.class)
  IdempotencyAdminEndpoint idempotencyAdminEndpoint(
      IdempotencyEngine engine,
      ObjectProvider<Completer.Resumer> resumer,
      IdempotencyAdminEndpointProperties properties) {
    KeyStoreAdmin.Builder builder = KeyStoreAdmin.builder(engine);
    Completer.Resumer resumes = resumer.getIfUnique();
    if (resumes != null) {
      builder.resumer(resumes);
    }
    return new IdempotencyAdminEndpoint(builder.build(), properties.isWritesEnabled());
  }
}
