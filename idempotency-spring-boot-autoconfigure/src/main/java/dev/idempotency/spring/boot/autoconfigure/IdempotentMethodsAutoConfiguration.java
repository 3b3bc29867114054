package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spring.IdempotentMethods;
import dev.idempotency.spring.boot.autoconfigure.internal.JoinedEntityManagerFactory;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code @Idempotent} methods ({@code idempotency-spring}) over the application's engine: the
 * {@link IdempotentMethods} advisor, with the context's {@link JsonMapper} for results and
 * fingerprints and, for {@code @Idempotent(transactional = true)}, the application's one {@link
 * DataSource} and the one JPA {@code EntityManagerFactory} built on it, if any ({@link
 * JoinedEntityManagerFactory}). An infrastructure bean, so that Boot's auto-proxy creator applies
 * it even without AspectJ; an application's own {@code IdempotentMethods} bean wins.
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
   * The advisor. Static, and nothing of the context's built for it until the first
   * {@code @Idempotent} method is found: the auto-proxy creator builds advisors while the
   * post-processors are being registered, and every bean fetched then misses the later
   * post-processors (a pool's metrics, a wrapping DataSource) and is logged as "not eligible for
   * getting processed by all BeanPostProcessors". So the engine, the JSON mapper, the DataSource
   * and the EntityManagerFactory are asked for lazily, and the properties are bound from the
   * Environment rather than taken as their bean (whose binding would build the context's property
   * converters).
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  @ConditionalOnMissingBean
  static IdempotentMethods idempotentMethods(
      ObjectProvider<IdempotencyEngine> engine,
      ObjectProvider<JsonMapper> jsonMapper,
      ObjectProvider<DataSource> dataSource,
      ListableBeanFactory beans,
      Environment environment) {
    IdempotentMethodsProperties p =
        Binder.get(environment)
            .bindOrCreate(IdempotentMethodsProperties.PREFIX, IdempotentMethodsProperties.class);
    IdempotentMethods.Builder builder =
        IdempotentMethods.builder(engine::getObject)
            .defaultScope(p.getDefaultScope())
            .allowSurroundingTransactions(p.isAllowSurroundingTransactions())
            .transactionalDataSource(dataSource::getIfUnique)
            .jsonMapper(() -> jsonMapper.getIfAvailable(JsonMapper::shared));
    if (JoinedEntityManagerFactory.present()) {
      builder.transactionalEntityManagerFactory(
          JoinedEntityManagerFactory.lazily(beans, dataSource::getIfUnique));
    }
    return builder.build();
  }
}
