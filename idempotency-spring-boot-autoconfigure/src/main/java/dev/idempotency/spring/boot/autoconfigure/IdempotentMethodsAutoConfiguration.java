package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spring.IdempotentMethods;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code @Idempotent} methods ({@code idempotency-spring}) over the application's engine: the
 * {@link IdempotentMethods} advisor, with the context's {@link JsonMapper} for results and
 * fingerprints and, for {@code @Idempotent(transactional = true)}, the application's one {@link
 * DataSource}. An infrastructure bean, so that Boot's auto-proxy creator applies it even without
 * AspectJ; an application's own {@code IdempotentMethods} bean wins.
 */
@AutoConfiguration(
    after = {IdempotencyAutoConfiguration.class, IdempotencyJdbcAutoConfiguration.class},
    afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(IdempotentMethods.class)
@ConditionalOnBean(IdempotencyEngine.class)
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", matchIfMissing = true)
@ConditionalOnProperty(prefix = "idempotency.methods", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotentMethodsProperties.class)
public final class IdempotentMethodsAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotentMethodsAutoConfiguration() {}

  /**
   * The advisor. Static, and the engine and the DataSource looked up only when the first
   * {@code @Idempotent} method is found: the auto-proxy creator builds advisors before most beans
   * exist, and building the engine then would build its store and the DataSource before every
   * post-processor (a pool's metrics, a wrapping DataSource) is in place.
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  @ConditionalOnMissingBean
  static IdempotentMethods idempotentMethods(
      ObjectProvider<IdempotencyEngine> engine,
      ObjectProvider<JsonMapper> jsonMapper,
      ObjectProvider<DataSource> dataSource,
      ObjectProvider<IdempotentMethodsProperties> properties) {
    IdempotentMethodsProperties p = properties.getObject();
    IdempotentMethods.Builder builder =
        IdempotentMethods.builder(engine::getObject)
            .defaultScope(p.getDefaultScope())
            .allowSurroundingTransactions(p.isAllowSurroundingTransactions())
            .transactionalDataSource(dataSource::getIfUnique);
    jsonMapper.ifAvailable(builder::jsonMapper);
    return builder.build();
  }
}
