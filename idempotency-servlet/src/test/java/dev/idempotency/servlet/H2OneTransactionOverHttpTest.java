package dev.idempotency.servlet;

import static dev.idempotency.servlet.ContractOverHttpTest.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.store.jdbc.Dialect;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.LoopbackPorts;
import dev.idempotency.testing.TestDatabases;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An endpoint rule in one transaction, over Jetty, with the JDBC store on embedded H2; and, once,
 * with the store unreachable.
 */
class H2OneTransactionOverHttpTest extends OneTransactionOverHttpContract {
  @Override
  protected TestDatabases database() {
    return TestDatabases.H2;
  }

  /**
   * The store unreachable (a PostgreSQL address on a loopback port nothing listens on): 503 {@code
   * idempotency_store_unavailable}, and the application does not run (fail closed).
   */
  @Test
  void anUnreachableStoreIs503AndTheApplicationDoesNotRun() throws Exception {
    PGSimpleDataSource unreachable = new PGSimpleDataSource();
    unreachable.setURL("jdbc:postgresql://127.0.0.1:" + LoopbackPorts.closed() + "/idem");
    unreachable.setConnectTimeout(2);
    JdbcKeyStore store =
        JdbcKeyStore.builder(unreachable).dialect(Dialect.POSTGRESQL).validateSchema(false).build();
    TestApp app = new TestApp();
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        FilteredTestApp s =
            new FilteredTestApp(
                app,
                (req, res, chain) -> chain.doFilter(req, res),
                IdempotencyHttp.builder(engine)
                    .endpoint(
                        EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST")
                            .inOneTransaction())
                    .build())) {
      HttpResponse<byte[]> r = s.post("/orders", "down-1", "{}");

      assertProblem(r, 503, "idempotency_store_unavailable", true);
      assertThat(app.totalEffects()).isZero();
    }
  }
}
