package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.servlet.IdempotencyFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What a request of an endpoint in one transaction promises the application's writes, whichever way
 * the application writes (one subclass per way): sent through the filter the context registers,
 * they run on the connection that holds the claim, commit with the stored response in one commit,
 * roll back with the claim when the application then fails, and a {@code @Transactional} block (a
 * {@link TransactionTemplate} on the context's transaction manager) joins that transaction, its
 * rollback-only mark rolling back the key too.
 */
abstract class OneTransactionContract {
  /** The commits on the connections of {@link #h2}. */
  final AtomicInteger commits = new AtomicInteger();

  /** H2 in memory, with the application's table {@code orders}, counting commits. */
  final DataSource h2 = countingCommits(h2());

  /** How the application writes a row of {@code orders}: its SQL has run when it returns. */
  interface Writer {
    void write(String id);
  }

  /** What the application does with one request; it may throw. */
  interface Handler {
    void handle(HttpServletRequest request, HttpServletResponse response) throws Exception;
  }

  /** The context: {@link #oneTransactionApplication()} and the variant's way of writing. */
  abstract WebApplicationContextRunner runner();

  /** The variant's way of writing, from the context's beans. */
  abstract Writer writer(AssertableWebApplicationContext context);

  /** The application's one {@link #h2}, and {@code POST /orders} guarded in one transaction. */
  final WebApplicationContextRunner oneTransactionApplication() {
    return new WebApplicationContextRunner()
        .withBean(DataSource.class, () -> h2)
        .withPropertyValues(
            "idempotency.jdbc.create-schema-if-missing=true",
            "idempotency.endpoints[0].paths=/orders",
            "idempotency.endpoints[0].methods=POST",
            "idempotency.endpoints[0].in-one-transaction=true");
  }

  private static DataSource h2() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    new JdbcTemplate(h2).execute("CREATE TABLE orders (id VARCHAR(40) PRIMARY KEY)");
    return h2;
  }

  /** {@code dataSource}, whose connections count their commits in {@link #commits}. */
  private DataSource countingCommits(DataSource dataSource) {
    ClassLoader loader = getClass().getClassLoader();
    return (DataSource)
        Proxy.newProxyInstance(
            loader,
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(dataSource, method, args);
              if (!(result instanceof Connection connection)) {
                return result;
              }
              return Proxy.newProxyInstance(
                  loader,
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    if (m.getName().equals("commit")) {
                      commits.incrementAndGet();
                    }
                    return invoke(connection, m, a);
                  });
            });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * The rows committed, as another connection sees them (one of its own, not through Spring, which
   * would hand out the request's).
   */
  final int committed() throws SQLException {
    try (Connection connection = h2.getConnection();
        Statement statement = connection.createStatement();
        ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM orders")) {
      count.next();
      return count.getInt(1);
    }
  }

  /** The idempotency filter {@code context} registered, with its decorators. */
  static Filter filter(AssertableWebApplicationContext context) {
    return context
        .getBean(IdempotencyServletAutoConfiguration.REGISTRATION, FilterRegistrationBean.class)
        .getFilter();
  }

  /** Sends {@code POST /orders} by {@code alice} with {@code key} through {@code filter}. */
  static MockHttpServletResponse post(Filter filter, String key, Handler handler) throws Exception {
    MockHttpServletRequest post = new MockHttpServletRequest("POST", "/orders");
    post.setServletPath("/orders");
    post.setUserPrincipal(() -> "alice");
    post.addHeader("Idempotency-Key", key);
    post.setContentType("application/json");
    post.setContent("{\"item\":42}".getBytes(StandardCharsets.UTF_8));
    MockHttpServletResponse response = new MockHttpServletResponse();
    HttpServlet application =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse res)
              throws IOException {
            try {
              handler.handle(req, res);
            } catch (IOException | RuntimeException e) {
              throw e;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          }
        };
    filter.doFilter(post, response, new MockFilterChain(application));
    return response;
  }

  /**
   * The write runs on the connection that holds the claim (Spring's connection for the DataSource
   * is the claim's, and a query there sees the row while another connection does not), and commits
   * with the stored response in one commit; the retry replays without running the application.
   */
  @Test
  void aWriteRunsOnTheClaimsConnectionAndCommitsWithTheResponseInOneCommit() {
    runner()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Writer writer = writer(context);
              JdbcTemplate jdbc = new JdbcTemplate(h2);
              AtomicReference<Boolean> springsConnectionIsTheClaims = new AtomicReference<>();
              AtomicReference<Integer> seenOnTheClaimsConnection = new AtomicReference<>();
              AtomicReference<Integer> seenElsewhere = new AtomicReference<>();
              AtomicInteger runs = new AtomicInteger();
              Handler write =
                  (req, res) -> {
                    runs.incrementAndGet();
                    Object claim = req.getAttribute(IdempotencyFilter.TRANSACTION_ATTRIBUTE);
                    springsConnectionIsTheClaims.set(DataSourceUtils.getConnection(h2) == claim);
                    writer.write("order-1");
                    seenOnTheClaimsConnection.set(
                        jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class));
                    seenElsewhere.set(committed());
                    res.setStatus(201);
                    res.getWriter().write("{\"order\":1}");
                  };

              commits.set(0);
              MockHttpServletResponse first = post(filter(context), "order-1", write);
              int commitsOfTheRequest = commits.get();
              MockHttpServletResponse retry = post(filter(context), "order-1", write);

              assertThat(springsConnectionIsTheClaims.get()).isTrue();
              assertThat(seenOnTheClaimsConnection.get()).isEqualTo(1);
              assertThat(seenElsewhere.get())
                  .as("uncommitted until the response is stored")
                  .isZero();
              assertThat(commitsOfTheRequest)
                  .as("one commit: the claim, the row and the stored response")
                  .isEqualTo(1);
              assertThat(first.getStatus()).isEqualTo(201);
              assertThat(retry.getStatus()).isEqualTo(201);
              assertThat(retry.getContentAsString()).isEqualTo("{\"order\":1}");
              assertThat(runs).as("the retry replayed, the application ran once").hasValue(1);
              assertThat(committed()).isEqualTo(1);
            });
  }

  /**
   * The application wrote and then failed: its row rolls back with the claim, so the retry runs as
   * a first attempt and the table holds one row, not two.
   */
  @Test
  void aFailureAfterAWriteRollsTheWriteBackWithTheClaim() {
    runner()
        .run(
            context -> {
              Writer writer = writer(context);
              AtomicInteger runs = new AtomicInteger();
              Handler failsOnce =
                  (req, res) -> {
                    writer.write("order-2");
                    if (runs.incrementAndGet() == 1) {
                      throw new IllegalStateException("the payment provider said no");
                    }
                    res.setStatus(201);
                  };

              assertThatThrownBy(() -> post(filter(context), "order-2", failsOnce))
                  .hasStackTraceContaining("the payment provider said no");
              assertThat(committed()).as("the failed attempt's row rolled back").isZero();

              MockHttpServletResponse retry = post(filter(context), "order-2", failsOnce);

              assertThat(retry.getStatus()).isEqualTo(201);
              assertThat(runs).hasValue(2);
              assertThat(committed()).isEqualTo(1);
            });
  }

  /**
   * A {@code @Transactional} block joins the request's transaction: it commits nothing on its own,
   * and when it marks the transaction rollback-only the request fails with everything rolled back,
   * its key included.
   */
  @Test
  void aTransactionalBlockJoinsTheRequestsTransactionAndItsRollbackOnlyRollsBackTheKey() {
    runner()
        .run(
            context -> {
              Writer writer = writer(context);
              TransactionTemplate transactional =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              AtomicReference<Boolean> joined = new AtomicReference<>();
              Handler marksRollbackOnly =
                  (req, res) -> {
                    transactional.executeWithoutResult(
                        status -> {
                          joined.set(!status.isNewTransaction());
                          writer.write("rolled-back");
                          status.setRollbackOnly();
                        });
                    res.setStatus(201);
                  };

              assertThatThrownBy(() -> post(filter(context), "order-3", marksRollbackOnly))
                  .isInstanceOf(UnexpectedRollbackException.class);

              assertThat(joined.get()).as("the transactional block joined, not began").isTrue();
              assertThat(committed()).isZero();
              Handler commits =
                  (req, res) -> {
                    transactional.executeWithoutResult(status -> writer.write("committed"));
                    res.setStatus(201);
                  };
              assertThat(post(filter(context), "order-3", commits).getStatus())
                  .as("the key was released with the rollback: the retry runs")
                  .isEqualTo(201);
              assertThat(committed()).isEqualTo(1);
            });
  }
}
