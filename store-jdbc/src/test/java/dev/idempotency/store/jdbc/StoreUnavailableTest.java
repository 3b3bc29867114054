package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimRequest;
import java.lang.reflect.Proxy;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A database that cannot be reached surfaces as {@link StoreUnavailableException}: at start-up and
 * per call.
 */
class StoreUnavailableTest {

  static DataSource closedPort(String url) {
    return (DataSource)
        Proxy.newProxyInstance(
            StoreUnavailableTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return DriverManager.getConnection(url, "idem", "idem");
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  /**
   * Connection refused: the claim decides nothing and says the store is unavailable; so does the
   * start-up.
   */
  @ParameterizedTest
  @CsvSource({
    "POSTGRESQL, jdbc:postgresql://127.0.0.1:1/idem?connectTimeout=2",
    "MYSQL, jdbc:mysql://127.0.0.1:1/idem?connectTimeout=2000",
    "MYSQL, jdbc:mariadb://127.0.0.1:1/idem?connectTimeout=2000&sslMode=disable",
    "H2, jdbc:h2:tcp://127.0.0.1:1/mem:nowhere"
  })
  void unreachableDatabaseIsStoreUnavailable(Dialect dialect, String url) {
    DataSource ds = closedPort(url);
    JdbcKeyStore store = JdbcKeyStore.builder(ds).dialect(dialect).validateSchema(false).build();
    ClaimRequest request =
        new ClaimRequest(
            RecordId.of("a", "k"),
            Fingerprint.of(new byte[] {1}),
            Instant.now(),
            Duration.ofSeconds(30),
            Duration.ofHours(24));
    assertThatThrownBy(() -> store.claim(request))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("claim of a/k");
    assertThatThrownBy(() -> store.lookup(RecordId.of("a", "k")))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> JdbcKeyStore.builder(ds).build())
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(store.dialect()).isEqualTo(dialect);
  }
}
