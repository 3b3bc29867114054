package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.KeyStoreException;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.boot.autoconfigure.internal.PropertyChecks;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStoreBuilder;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
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

  /** The bean name of the JDBC store this configuration builds. */
  public static final String STORE = "idempotencyKeyStore";

  /** The JDBC store; a {@link KeyStore} bean of the application's wins. */
  @Bean(STORE)
  @ConditionalOnMissingBean(KeyStore.class)
  @DependsOnDatabaseInitialization
  JdbcKeyStore idempotencyKeyStore(DataSource dataSource, IdempotencyProperties properties) {
    IdempotencyJdbcProperties jdbc = properties.getJdbc();
    JdbcKeyStoreBuilder b = JdbcKeyStore.builder(dataSource);
    PropertyChecks.set(
        "idempotency.jdbc.table-name", jdbc.getTableName(), () -> b.tableName(jdbc.getTableName()));
    PropertyChecks.set(
        "idempotency.jdbc.statement-timeout",
        jdbc.getStatementTimeout(),
        () -> b.statementTimeout(jdbc.getStatementTimeout()));
    if (jdbc.isCreateSchemaIfMissing()) {
      b.createSchemaIfMissing();
    }
    try {
      return b.build();
    } catch (KeyStoreException e) {
      // the store's start-up check of its schema (a missing table, sequence or column) says so
      // first
      if (String.valueOf(e.getMessage()).startsWith("The idempotency table")) {
        throw missingTable(jdbc.getTableName(), e);
      }
      throw e;
    }
  }

  /**
   * The start-up failure of a missing table, as one line that names the property and the fix: the
   * migrations the starter ships create the default table only, so a table of another name is the
   * application's own migration to write.
   */
  private static InvalidConfigurationPropertyValueException missingTable(
      String table, KeyStoreException e) {
    boolean ownName = !IdempotencyJdbcProperties.DEFAULT_TABLE_NAME.equals(table);
    String fix =
        ownName
            ? "the migrations the starter ships (classpath:db/idempotency/{vendor}) create \""
                + IdempotencyJdbcProperties.DEFAULT_TABLE_NAME
                + "\" only: add a migration of your own that creates \""
                + table
                + "\" (JdbcKeyStore.schemaDdl(dialect, \""
                + table
                + "\") prints its DDL), or remove idempotency.jdbc.table-name"
            : "add classpath:db/idempotency/{vendor} to spring.flyway.locations (Flyway) so that the"
                + " starter's migration creates it, or create it with your own migration"
                + " (JdbcKeyStore.schemaDdl(dialect, table) prints its DDL); for development"
                + " only, idempotency.jdbc.create-schema-if-missing=true";
    InvalidConfigurationPropertyValueException failure =
        new InvalidConfigurationPropertyValueException(
            "idempotency.jdbc.table-name",
            table,
            "no table \"" + table + "\" (or it lacks the store's columns): " + fix);
    failure.addSuppressed(e);
    return failure;
  }
}
