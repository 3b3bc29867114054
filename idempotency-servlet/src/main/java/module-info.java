/**
 * A Jakarta Servlet 6 {@code Filter} that applies the idempotency-http contract in front of a
 * servlet application. The Servlet API is the container's.
 */
module dev.idempotency.servlet {
  requires transitive dev.idempotency.http;
  requires transitive jakarta.servlet;
  // IdempotencyFilter.transactionAware(DataSource)
  requires transitive java.sql;
  requires static org.jspecify;

  exports dev.idempotency.servlet;
}
