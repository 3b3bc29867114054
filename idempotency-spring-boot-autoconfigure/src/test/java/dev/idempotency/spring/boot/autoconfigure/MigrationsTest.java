package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The shipped migrations are the store's own DDL, byte for byte, per Flyway vendor name: a change
 * to the store's schema that is not copied here fails this test.
 */
class MigrationsTest {
  @Test
  void eachVendorsMigrationIsTheStoresSchema() throws IOException {
    Map<String, String> storeDirectory =
        Map.of("postgresql", "postgresql", "mysql", "mysql", "mariadb", "mysql", "h2", "h2");
    for (var vendor : storeDirectory.entrySet()) {
      String shipped = read("db/idempotency/" + vendor.getKey() + "/R__idempotency_records.sql");
      String store =
          read(
              "dev/idempotency/store/jdbc/schema/"
                  + vendor.getValue()
                  + "/V1__idempotency_records.sql");
      assertThat(shipped).as(vendor.getKey()).isEqualTo(store);
    }
  }

  private static String read(String resource) throws IOException {
    try (InputStream in =
        Objects.requireNonNull(
            MigrationsTest.class.getClassLoader().getResourceAsStream(resource), resource)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
