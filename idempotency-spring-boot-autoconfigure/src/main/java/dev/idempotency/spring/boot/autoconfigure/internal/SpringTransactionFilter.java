package dev.idempotency.spring.boot.autoconfigure.internal;

import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.spring.internal.StoreConnectionBinding;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.sql.Connection;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The idempotency filter, with the transaction of a request run in one transaction bound as
 * Spring's transaction for the application's {@link DataSource} while the application runs: {@code
 * JdbcTemplate} writes on the connection that holds the request's claim, and a
 * {@code @Transactional} method joins it (propagation {@code REQUIRED}) instead of committing on a
 * connection of its own, so the application's writes commit with the stored response or roll back
 * with the claim. Given the application's JPA {@code EntityManagerFactory}, a Hibernate session on
 * that connection is bound for it too: the shared {@code EntityManager} and Spring Data
 * repositories write in the same transaction, and a {@code JpaTransactionManager}'s
 * {@code @Transactional} joins it. Requests that run with a claim and a completion of their own (no
 * transaction attribute) pass through unchanged.
 *
 * <p>Only for the store the auto-configuration built over that same {@code DataSource}: a
 * connection of another database bound for it would send the application's writes there.
 */
public final class SpringTransactionFilter extends DelegatingFilter {
  private final DataSource dataSource;
  private final @Nullable Object entityManagerFactory;

  /**
   * {@code filter}, whose requests in one transaction bind their connection for {@code dataSource}
   * and, given one, a session on it for {@code entityManagerFactory}.
   *
   * @param entityManagerFactory a Hibernate {@code jakarta.persistence.EntityManagerFactory} built
   *     on {@code dataSource}, or null
   */
  public SpringTransactionFilter(
      Filter filter, DataSource dataSource, @Nullable Object entityManagerFactory) {
    super(filter);
    this.dataSource = dataSource;
    this.entityManagerFactory = entityManagerFactory;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    filter.doFilter(request, response, (req, res) -> runBound(req, res, chain));
  }

  private void runBound(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request.getAttribute(IdempotencyFilter.TRANSACTION_ATTRIBUTE)
        instanceof Connection transaction)) {
      chain.doFilter(request, response);
      return;
    }
    try {
      StoreConnectionBinding.run(
          dataSource,
          entityManagerFactory,
          transaction,
          () -> {
            chain.doFilter(request, response);
            return null;
          });
    } catch (IOException | ServletException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new ServletException(e);
    }
  }
}
