package dev.idempotency.benchmarks;

import dev.idempotency.store.jdbc.Dialect;

/**
 * The database servers {@link SingleStepBenchmark} and {@link WalPerRequest} run on, chosen with
 * {@code -p server=…}: each named by the environment variables its script exports, durable ({@code
 * benchmarks/durable.sh}: every commit flushed to disk) or not ({@code scripts/services.sh}).
 */
public enum OrdersServer {
  POSTGRESQL_DURABLE(Dialect.POSTGRESQL, "IDEMPOTENCY_DURABLE_PG_", true),
  MARIADB_DURABLE(Dialect.MYSQL, "IDEMPOTENCY_DURABLE_MARIADB_", true),
  POSTGRESQL(Dialect.POSTGRESQL, "IDEMPOTENCY_TEST_PG_", false),
  MARIADB(Dialect.MYSQL, "IDEMPOTENCY_TEST_MARIADB_", false),
  /** Embedded and in memory: for the build's smoke run, which has no server. */
  H2(Dialect.H2, "", false);

  final Dialect dialect;
  final String variablePrefix;
  final boolean durable;

  OrdersServer(Dialect dialect, String variablePrefix, boolean durable) {
    this.dialect = dialect;
    this.variablePrefix = variablePrefix;
    this.durable = durable;
  }

  String variable(String name) {
    if (dialect == Dialect.H2) {
      return switch (name) {
        case "URL" -> "jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1";
        case "USER" -> "sa";
        default -> "";
      };
    }
    // the MariaDB scripts export one user and password for MySQL and MariaDB URLs
    String prefix =
        name.equals("URL") ? variablePrefix : variablePrefix.replace("MARIADB_", "MYSQL_");
    String value = System.getenv(prefix + name);
    if (value == null) {
      throw new IllegalStateException(
          prefix
              + name
              + " is not set: "
              + (durable
                  ? "run benchmarks/durable.sh, which starts the durable servers"
                  : "start the test servers with eval \"$(bash scripts/services.sh)\""));
    }
    return value;
  }
}
