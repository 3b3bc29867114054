package dev.idempotency.examples.springboot;

import dev.idempotency.testing.TestDatabases;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The contract on the PostgreSQL test server, migrated by Flyway into a schema of its own ({@code
 * boot_example}), so that neither its history table nor its records meet other tests'.
 */
class PostgresSpringBootIT extends SpringBootContract {
  private static List<String> server;

  @BeforeAll
  static void requireServer() {
    server();
  }

  private static List<String> server() {
    if (server == null) {
      server =
          TestDatabases.require(
              "IDEMPOTENCY_TEST_PG_URL",
              "IDEMPOTENCY_TEST_PG_USER",
              "IDEMPOTENCY_TEST_PG_PASSWORD");
    }
    return server;
  }

  @DynamicPropertySource
  static void postgres(DynamicPropertyRegistry registry) {
    registry.add(
        "spring.datasource.url",
        () -> {
          String url = server().get(0);
          return url + (url.contains("?") ? "&" : "?") + "currentSchema=boot_example";
        });
    registry.add("spring.datasource.username", () -> server().get(1));
    registry.add("spring.datasource.password", () -> server().get(2));
    registry.add("spring.flyway.schemas", () -> "boot_example");
    registry.add("spring.flyway.default-schema", () -> "boot_example");
  }
}
