package dev.idempotency.admin;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.ClockSource;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The JDBC side of {@link AdminCliContract}: a table of the test's own on the database whose URL,
 * user and password the three variables name; the password reaches the tool through its environment
 * variable, as a script passes it.
 */
abstract class AdminCliJdbc extends AdminCliContract {
  private final String urlVariable;
  private final String userVariable;
  private final String passwordVariable;
  private String url = "";
  private String user = "";
  private String password = "";
  private String table = "";
  private DriverManagerDataSource dataSource;

  AdminCliJdbc(String urlVariable, String userVariable, String passwordVariable) {
    this.urlVariable = urlVariable;
    this.userVariable = userVariable;
    this.passwordVariable = passwordVariable;
  }

  @Override
  KeyStore openStore() {
    List<String> env = TestDatabases.require(urlVariable, userVariable, passwordVariable);
    url = env.get(0);
    user = env.get(1);
    password = env.get(2);
    table = "admin_it_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 4);
    dataSource = new DriverManagerDataSource(url, user, password);
    return JdbcKeyStore.builder(dataSource)
        .tableName(table)
        .clockSource(ClockSource.ENGINE)
        .createSchemaIfMissing()
        .build();
  }

  @Override
  void dropStore() throws Exception {
    if (dataSource == null) {
      return;
    }
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      if (url.startsWith("jdbc:postgresql")) {
        s.execute("DROP SEQUENCE IF EXISTS " + table + "_fence_seq");
      }
    }
  }

  @Override
  List<String> storeOptions() {
    return List.of("--jdbc-url", url, "--user", user, "--table", table);
  }

  @Override
  Map<String, String> env() {
    return Map.of("IDEMPOTENCY_ADMIN_JDBC_PASSWORD", password);
  }
}
