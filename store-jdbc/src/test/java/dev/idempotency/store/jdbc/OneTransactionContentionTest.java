package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.testing.TestDatabases;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A one-transaction claim that the database keeps aborting (a serialization failure on every
 * attempt, injected into H2's claim statement because no database aborts on demand): after the
 * store's attempts it is contention, answered as the store being unavailable, never a raw {@code
 * SQLException}, and the work never ran.
 */
class OneTransactionContentionTest {
  private final HikariDataSource pool = TestDatabases.H2.pool(TestDatabases.H2.url(), 2);

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  void aClaimAbortedOnEveryAttemptIsAnUnavailableStore() {
    JdbcKeyStore.builder(pool).createSchemaIfMissing().build(); // the schema, unharmed
    AtomicInteger claims = new AtomicInteger();
    JdbcKeyStore store =
        JdbcKeyStore.builder(abortingClaims(pool, claims)).maxTransactionAttempts(3).build();
    AtomicInteger runs = new AtomicInteger();
    ClaimRequest request =
        new ClaimRequest(
            RecordId.of("acct-1", "k-1"),
            Fingerprint.of("r".getBytes(StandardCharsets.UTF_8)),
            Instant.now(),
            Duration.ofSeconds(30),
            Duration.ofHours(24));

    assertThatThrownBy(
            () ->
                store.claimAndComplete(
                    request,
                    (tx, claim) -> {
                      runs.incrementAndGet();
                      return StoredResponse.ofUtf8(201, "created");
                    }))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("40001");
    assertThat(claims)
        .as("claim statements: the claim's own attempts in each of the 3 transactions")
        .hasValueGreaterThanOrEqualTo(3);
    assertThat(runs).as("work runs").hasValue(0);
    assertThat(store.lookup(request.id())).isEmpty();
  }

  /**
   * {@code ds}, whose claim statement (H2's {@code INSERT} or {@code UPDATE} that sets {@code
   * claim_kind}) fails with SQLState 40001, counted.
   */
  private static DataSource abortingClaims(DataSource ds, AtomicInteger claims) {
    return (DataSource)
        Proxy.newProxyInstance(
            OneTransactionContentionTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(ds, method, args);
              return result instanceof Connection c ? aborting(c, claims) : result;
            });
  }

  private static Connection aborting(Connection c, AtomicInteger claims) {
    InvocationHandler h =
        (proxy, method, args) -> {
          if (method.getName().equals("prepareStatement")
              && ((String) args[0]).contains("claim_kind")
              && !((String) args[0]).startsWith("SELECT")) {
            claims.incrementAndGet();
            throw new SQLException("serialization failure (injected)", "40001");
          }
          return invoke(c, method, args);
        };
    return (Connection)
        Proxy.newProxyInstance(
            OneTransactionContentionTest.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            h);
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
