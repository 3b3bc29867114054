package dev.idempotency.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link OneTransactionContract} for an application that writes with {@code JdbcTemplate}, and
 * whose {@code @Transactional} code runs on a {@code DataSourceTransactionManager}.
 */
class OneTransactionRequestTest extends OneTransactionContract {
  @Override
  WebApplicationContextRunner runner() {
    return oneTransactionApplication()
        .withConfiguration(
            AutoConfigurations.of(
                IdempotencyAutoConfiguration.class,
                IdempotencyJdbcAutoConfiguration.class,
                IdempotencyServletAutoConfiguration.class))
        .withBean(JdbcTemplate.class, () -> new JdbcTemplate(h2))
        .withBean(PlatformTransactionManager.class, () -> new DataSourceTransactionManager(h2));
  }

  @Override
  Writer writer(AssertableWebApplicationContext context) {
    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
    return id -> jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
  }
}
