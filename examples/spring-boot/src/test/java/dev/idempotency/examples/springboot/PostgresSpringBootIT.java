package dev.idempotency.examples.springboot;

import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The contract on the PostgreSQL test server, migrated by Flyway into a schema of this run's own
 * ({@code boot_example_<random>}, dropped after the class), so that neither its history table nor
 * its records meet other tests', nor a table another checkout's run migrated with its own schema
 * script on the same server.
 */
@DirtiesContext // closed right after the schema is dropped, so that its reaper stops with it
class PostgresSpringBootIT extends SpringBootContract {
  private static final String SCHEMA =
      "boot_example_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);

  private static List<String> server;

  @BeforeAll
  static void requireServer() {
    server();
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    List<String> s = server();
    try (Connection c = DriverManager.getConnection(s.get(0), s.get(1), s.get(2));
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
    }
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
          return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA;
        });
    registry.add("spring.datasource.username", () -> server().get(1));
    registry.add("spring.datasource.password", () -> server().get(2));
    registry.add("spring.flyway.schemas", () -> SCHEMA);
    registry.add("spring.flyway.default-schema", () -> SCHEMA);
  }
}
