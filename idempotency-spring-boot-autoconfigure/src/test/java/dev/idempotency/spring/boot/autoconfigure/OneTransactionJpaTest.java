package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.spring.Idempotent;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Table;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link OneTransactionContract} for a Spring Boot JPA application (Hibernate, the
 * EntityManagerFactory Boot builds over the DataSource, its {@link JpaTransactionManager}) that
 * persists entities through the shared {@code EntityManager}, what {@code @PersistenceContext} and
 * Spring Data repositories use; and what is JPA's own: the flush before the store commits, and
 * {@code @Idempotent(transactional = true)} methods that persist.
 */
class OneTransactionJpaTest extends OneTransactionContract {
  @Override
  WebApplicationContextRunner runner() {
    return oneTransactionApplication()
        .withConfiguration(
            AutoConfigurations.of(
                AopAutoConfiguration.class,
                HibernateJpaAutoConfiguration.class,
                IdempotencyAutoConfiguration.class,
                IdempotencyJdbcAutoConfiguration.class,
                IdempotencyServletAutoConfiguration.class,
                IdempotentMethodsAutoConfiguration.class))
        .withBean(
            PersistenceManagedTypes.class,
            () -> PersistenceManagedTypes.of(OrderRow.class.getName()))
        .withBean(Orders.class)
        .withPropertyValues("spring.jpa.hibernate.ddl-auto=none");
  }

  /** Persists and flushes, so that the entity's SQL has run when it returns. */
  @Override
  Writer writer(AssertableWebApplicationContext context) {
    Orders orders = context.getBean(Orders.class);
    return id -> {
      orders.place(id);
      orders.flush();
    };
  }

  /** A row of {@code orders}, mapped by JPA. */
  @Entity
  @Table(name = "orders")
  static class OrderRow {
    @Id String id;

    protected OrderRow() {}

    OrderRow(String id) {
      this.id = id;
    }
  }

  /**
   * The application's JPA code: the shared EntityManager, as it injects it. Used through its
   * methods: the bean is a class proxy, whose own fields are not the target's.
   */
  static class Orders {
    @PersistenceContext EntityManager entityManager;
    private final AtomicInteger runs = new AtomicInteger();

    public void place(String id) {
      entityManager.persist(new OrderRow(id));
    }

    public void flush() {
      entityManager.flush();
    }

    public int runs() {
      return runs.get();
    }

    @Idempotent(key = "'booking-' + #p0", transactional = true)
    public String book(String id) {
      runs.incrementAndGet();
      entityManager.persist(new OrderRow(id));
      return "booked-" + id;
    }
  }

  /** The contract's transactional blocks run on Spring Boot's JpaTransactionManager. */
  @Test
  void theTransactionManagerIsSpringBootsJpaTransactionManager() {
    runner()
        .run(
            context ->
                assertThat(context.getBean(PlatformTransactionManager.class))
                    .isInstanceOf(JpaTransactionManager.class));
  }

  /**
   * An entity persisted without a flush of the application's is flushed before the store commits:
   * it commits with the response.
   */
  @Test
  void anEntityLeftUnflushedIsFlushedBeforeTheStoreCommits() {
    runner()
        .run(
            context -> {
              Orders orders = context.getBean(Orders.class);

              MockHttpServletResponse response =
                  post(
                      filter(context),
                      "order-2",
                      (req, res) -> {
                        orders.place("order-2");
                        res.setStatus(201);
                      });

              assertThat(response.getStatus()).isEqualTo(201);
              assertThat(committed()).isEqualTo(1);
            });
  }

  /**
   * JPA code after a joined {@code @Transactional} block still writes in the request's transaction:
   * the block's end clears Spring's "transaction active" flag, and the session's own transaction is
   * what the shared EntityManager then checks.
   */
  @Test
  void anEntityPersistedAfterAJoinedTransactionalBlockCommitsWithTheResponse() {
    runner()
        .run(
            context -> {
              TransactionTemplate transactional =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              Orders orders = context.getBean(Orders.class);

              MockHttpServletResponse response =
                  post(
                      filter(context),
                      "order-6",
                      (req, res) -> {
                        transactional.executeWithoutResult(status -> orders.place("inside"));
                        orders.place("after");
                        res.setStatus(201);
                      });

              assertThat(response.getStatus()).isEqualTo(201);
              assertThat(committed()).isEqualTo(2);
            });
  }

  /**
   * A write that fails only as the session is flushed, after the application returned, fails the
   * request as a JPA commit would ({@code DataIntegrityViolationException}): nothing commits, and
   * the key is released.
   */
  @Test
  void aFlushThatFailsAfterTheApplicationReturnedFailsTheRequestAndReleasesTheKey() {
    runner()
        .run(
            context -> {
              new JdbcTemplate(h2).update("INSERT INTO orders (id) VALUES ('taken')");
              Orders orders = context.getBean(Orders.class);
              Handler duplicate =
                  (req, res) -> {
                    orders.place("fresh");
                    orders.place("taken");
                    res.setStatus(201);
                  };

              assertThatThrownBy(() -> post(filter(context), "order-5", duplicate))
                  .isInstanceOf(DataIntegrityViolationException.class);
              assertThat(committed()).as("only the row that was there").isEqualTo(1);

              MockHttpServletResponse retry =
                  post(filter(context), "order-5", (req, res) -> res.setStatus(201));
              assertThat(retry.getStatus())
                  .as("the key was released: the retry runs")
                  .isEqualTo(201);
            });
  }

  /**
   * {@code @Idempotent(transactional = true)}: the method's entity commits with its stored result
   * through the shared EntityManager, and a second call replays the result without running it.
   */
  @Test
  void aTransactionalMethodsEntityCommitsWithItsResult() {
    runner()
        .run(
            context -> {
              Orders orders = context.getBean(Orders.class);

              String first = orders.book("b-1");
              String second = orders.book("b-1");

              assertThat(first).isEqualTo("booked-b-1");
              assertThat(second).isEqualTo(first);
              assertThat(orders.runs()).isEqualTo(1);
              assertThat(committed()).isEqualTo(1);
            });
  }

  /**
   * A transactional method called while an EntityManager of the request is bound (as open-in-view
   * binds one around a controller) runs in the store's transaction all the same, and the request's
   * EntityManager is bound again once it returns.
   */
  @Test
  void aTransactionalMethodCalledUnderAnOpenInViewEntityManagerRunsInTheStoresTransaction() {
    runner()
        .run(
            context -> {
              Orders orders = context.getBean(Orders.class);
              EntityManagerFactory factory = context.getBean(EntityManagerFactory.class);
              EntityManagerHolder openInView =
                  new EntityManagerHolder(factory.createEntityManager());
              TransactionSynchronizationManager.bindResource(factory, openInView);
              try {
                assertThat(orders.book("b-2")).isEqualTo("booked-b-2");

                assertThat(TransactionSynchronizationManager.getResource(factory))
                    .isSameAs(openInView);
              } finally {
                TransactionSynchronizationManager.unbindResource(factory);
                openInView.getEntityManager().close();
              }
              assertThat(committed()).isEqualTo(1);
            });
  }
}
