package dev.idempotency.examples.springboot;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The application's pool, behind a switch that makes the database unreachable: {@code
 * getConnection} then fails as a pool whose server is down does. A stand-in for stopping the
 * database server, which the tests share with every other module's and cannot stop.
 */
class SwitchableDataSource extends DelegatingDataSource {
  private volatile boolean down;

  SwitchableDataSource(DataSource target) {
    super(target);
  }

  void down(boolean down) {
    this.down = down;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (down) {
      throw new SQLTransientConnectionException("the database is down (test switch)", "08001");
    }
    return super.getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    if (down) {
      throw new SQLTransientConnectionException("the database is down (test switch)", "08001");
    }
    return super.getConnection(username, password);
  }

  /** Wraps the application's DataSource bean. */
  @TestConfiguration(proxyBeanMethods = false)
  static class Wrapping {
    @Bean
    static BeanPostProcessor switchableDataSource() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
          return bean instanceof DataSource ds && !(bean instanceof SwitchableDataSource)
              ? new SwitchableDataSource(ds)
              : bean;
        }
      };
    }
  }
}
