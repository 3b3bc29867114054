package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.boot.autoconfigure.internal.PropertyChecks;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

/**
 * The {@link JdbcKeyStore} over the application's one {@link DataSource}, its dialect detected,
 * unless the application defines a {@link KeyStore} of its own. It is built after the database's
 * migrations ran (Flyway, Liquibase, or Boot's SQL initialisation), and it checks the schema then:
 * a missing table fails start-up with a message that names the migration to add. With {@code
 * idempotency.jdbc.create-schema-if-missing=true} it creates the table itself.
 */
@AutoConfiguration(
    before = IdempotencyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
      "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"
    })
@ConditionalOnClass({JdbcKeyStore.class, DataSource.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "idempotency", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyProperties.class)
public final class IdempotencyJdbcAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyJdbcAutoConfiguration() {}

  /** The JDBC store; a {@link KeyStore} bean of the application's wins. */
  @Bean
  @ConditionalOnMissingBean(KeyStore.class)
  @DependsOnDatabaseInitialization
  JdbcKeyStore idempotencyKeyStore(DataSource dataSource, IdempotencyProperties properties) {
    IdempotencyProperties.Jdbc jdbc = properties.getJdbc();
    JdbcKeyStore.Builder b = JdbcKeyStore.builder(dataSource);
    PropertyChecks.set(
        "idempotency.jdbc.table-name", jdbc.getTableName(), () -> b.tableName(jdbc.getTableName()));
    PropertyChecks.set(
        "idempotency.jdbc.statement-timeout",
        jdbc.getStatementTimeout(),
        () -> b.statementTimeout(jdbc.getStatementTimeout()));
    if (jdbc.isCreateSchemaIfMissing()) {
      b.createSchemaIfMissing();
    }
    return b.build();
  }
}
