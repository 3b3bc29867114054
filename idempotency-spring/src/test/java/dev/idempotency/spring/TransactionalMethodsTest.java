package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.Ledger.Audit;
import dev.idempotency.spring.Ledger.Checkout;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * {@code @Idempotent(transactional = true)} on H2 with the JDBC store and {@code JdbcTemplate}, in
 * a context as Spring Boot sets one up ({@code @EnableTransactionManagement}, the advisor with the
 * infrastructure role): the method's rows and its stored result commit in one transaction, or
 * neither does; a joined {@code @Transactional} writes in it; a surrounding transaction is refused.
 */
class TransactionalMethodsTest {
  static volatile boolean allowSurrounding;

  AnnotationConfigApplicationContext context;
  HikariDataSource dataSource;

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class App {
    @Bean(destroyMethod = "close")
    HikariDataSource dataSource() {
      HikariDataSource ds = TestDatabases.H2.pool(TestDatabases.H2.url(), 8);
      JdbcTemplate jdbc = new JdbcTemplate(ds);
      jdbc.execute("create table charges(id varchar(64) primary key)");
      jdbc.execute("create table audit(id varchar(64) primary key)");
      return ds;
    }

    @Bean
    DataSourceTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    KeyStore keyStore(DataSource dataSource) {
      return JdbcKeyStore.builder(dataSource).createSchemaIfMissing().build();
    }

    @Bean
    IdempotencyEngine engine(KeyStore keyStore) {
      return IdempotencyEngine.builder(keyStore).build();
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static IdempotentMethods idempotentMethods(IdempotencyEngine engine, DataSource dataSource) {
      return IdempotentMethods.builder(engine)
          .transactionalDataSource(dataSource)
          .allowSurroundingTransactions(allowSurrounding)
          .build();
    }

    @Bean
    Audit audit(DataSource dataSource) {
      return new Audit(dataSource);
    }

    @Bean
    Ledger ledger(DataSource dataSource, KeyStore keyStore, Audit audit) {
      return new Ledger(dataSource, keyStore, audit);
    }

    @Bean
    Checkout checkout(Ledger ledger) {
      return new Checkout(ledger);
    }
  }

  Ledger start() {
    context = SpringContexts.start(App.class);
    dataSource = context.getBean(HikariDataSource.class);
    return context.getBean(Ledger.class);
  }

  @AfterEach
  void stop() {
    allowSurrounding = false;
    if (context != null) {
      context.close();
    }
  }

  int rows(String table) {
    return new JdbcTemplate(dataSource)
        .queryForObject("select count(*) from " + table, Integer.class);
  }

  KeyState state(String key) {
    return context
        .getBean(KeyStore.class)
        .lookup(RecordId.of("methods", key))
        .map(r -> r.state())
        .orElse(KeyState.ABSENT);
  }

  @Test
  void theMethodsRowAndItsResultCommitInOneTransaction() throws Exception {
    Ledger ledger = start();

    assertThat(ledger.charge("c1", false)).isEqualTo("charged c1");

    // while the method ran, another connection saw neither its row nor its key's record
    assertThat(ledger.seenFromOutside()).containsExactly("rows=0 record=Optional.empty");
    assertThat(rows("charges")).isEqualTo(1);
    assertThat(state("charge-c1")).isEqualTo(KeyState.COMPLETE);
    assertThat(ledger.charge("c1", false)).isEqualTo("charged c1");
    assertThat(ledger.seenFromOutside()).hasSize(1); // the replay did not run the method
    assertThat(rows("charges")).isEqualTo(1);
  }

  /**
   * Its writes commit only with its result, under the claim: it has no lease of its own to check.
   */
  @Test
  void aTransactionalMethodHasNoExecution() {
    Ledger ledger = start();

    assertThat(ledger.asksForItsExecution("a1"))
        .startsWith("a transactional @Idempotent method has no Execution");
  }

  @Test
  void aMethodThatThrowsLeavesNeitherItsRowNorTheKey() throws Exception {
    Ledger ledger = start();

    assertThatThrownBy(() -> ledger.charge("c2", true)).hasMessage("declined after the insert");

    assertThat(rows("charges")).isZero();
    assertThat(state("charge-c2")).isEqualTo(KeyState.ABSENT);
    assertThat(ledger.charge("c2", false)).isEqualTo("charged c2");
    assertThat(rows("charges")).isEqualTo(1);
  }

  @Test
  void aJoinedTransactionalMethodCommitsNothingOfItsOwn() {
    Ledger ledger = start();

    assertThatThrownBy(() -> ledger.chargeAudited("a1", false, true))
        .hasMessage("failed after the audit committed its part");

    // had the audit's @Transactional begun a transaction of its own, its row would be there
    assertThat(rows("audit")).isZero();
    assertThat(rows("charges")).isZero();
    assertThat(state("audited-a1")).isEqualTo(KeyState.ABSENT);
    assertThat(ledger.chargeAudited("a1", false, false)).isEqualTo("audited a1");
    assertThat(rows("audit")).isEqualTo(1);
  }

  @Test
  void aJoinedMethodThatMarkedTheTransactionRollbackOnlyRollsEverythingBack() {
    Ledger ledger = start();

    assertThatThrownBy(() -> ledger.chargeAudited("a2", true, false))
        .isInstanceOf(UnexpectedRollbackException.class)
        .hasMessageContaining("rollback-only");

    assertThat(rows("audit")).isZero();
    assertThat(rows("charges")).isZero();
    assertThat(state("audited-a2")).isEqualTo(KeyState.ABSENT);
  }

  @Test
  void aTransactionalMethodInsideTheCallersTransactionIsRefused() {
    start();
    Checkout checkout = context.getBean(Checkout.class);

    assertThatThrownBy(() -> checkout.pay("p1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Ledger.charge(String, boolean)")
        .hasMessageContaining("inside a Spring transaction");

    assertThat(rows("charges")).isZero();
    assertThat(state("charge-p1")).isEqualTo(KeyState.ABSENT);
  }

  @Test
  void aPlainMethodInsideTheCallersTransactionIsRefusedByDefault() {
    start();
    Checkout checkout = context.getBean(Checkout.class);

    assertThatThrownBy(() -> checkout.payPlainThenFail("p2"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Ledger.plainCharge(String)")
        .hasMessageContaining("allowSurroundingTransactions");

    assertThat(state("plain-p2")).isEqualTo(KeyState.ABSENT);
  }

  /**
   * What the refusal prevents, once allowed: the key completes on the store's own connection before
   * the caller's transaction rolls back, so the retry replays a charge that never committed.
   */
  @Test
  void allowedInsideARolledBackTransactionTheRetryReplaysAChargeThatNeverCommitted() {
    allowSurrounding = true;
    Ledger ledger = start();
    Checkout checkout = context.getBean(Checkout.class);

    assertThatThrownBy(() -> checkout.payPlainThenFail("p3"))
        .hasMessage("the checkout rolled back after the charge returned");

    assertThat(rows("charges")).isZero();
    assertThat(state("plain-p3")).isEqualTo(KeyState.COMPLETE);
    assertThat(ledger.plainCharge("p3")).isEqualTo("charged p3");
    assertThat(rows("charges")).isZero();
  }
}
