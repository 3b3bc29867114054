package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.spring.boot.autoconfigure.internal.SpringTransactionFilter;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/**
 * Whether the application's Spring JDBC writes can join a request's transaction decides the filter:
 * with idempotency-spring the request's connection is bound for them; without it start-up says,
 * once, that they commit on their own connections.
 */
@Timeout(60)
class SpringBindingPresenceTest {
  private final Logger logger =
      Logger.getLogger(IdempotencyServletAutoConfiguration.class.getName());
  private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            warnings.add(record);
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void listen() {
    logger.addHandler(capture);
  }

  @AfterEach
  void stopListening() {
    logger.removeHandler(capture);
  }

  private static WebApplicationContextRunner application() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    return new WebApplicationContextRunner()
        .withBean(DataSource.class, () -> h2)
        .withPropertyValues("idempotency.jdbc.create-schema-if-missing=true")
        .withConfiguration(
            AutoConfigurations.of(
                IdempotencyAutoConfiguration.class,
                IdempotencyJdbcAutoConfiguration.class,
                IdempotencyServletAutoConfiguration.class));
  }

  private static Object registeredFilter(org.springframework.context.ApplicationContext context) {
    return context
        .getBean(IdempotencyServletAutoConfiguration.REGISTRATION, FilterRegistrationBean.class)
        .getFilter();
  }

  @Test
  void withIdempotencySpringTheRequestsConnectionIsBoundAndNothingIsSaid() {
    application()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(registeredFilter(context)).isInstanceOf(SpringTransactionFilter.class);
            });
    assertThat(warnings).isEmpty();
  }

  @Test
  void withoutIdempotencySpringStartUpSaysTheWritesDoNotJoin() {
    application()
        .withClassLoader(new FilteredClassLoader("dev.idempotency.spring.internal"))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(registeredFilter(context)).isNotInstanceOf(SpringTransactionFilter.class);
            });
    assertThat(warnings)
        .extracting(LogRecord::getMessage)
        .containsExactly(IdempotencyServletAutoConfiguration.NOT_JOINED);
  }
}
