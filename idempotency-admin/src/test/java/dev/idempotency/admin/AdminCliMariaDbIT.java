package dev.idempotency.admin;

import java.util.List;

/** {@link AdminCliContract} on the real MariaDB. */
class AdminCliMariaDbIT extends AdminCliJdbc {
  AdminCliMariaDbIT() {
    super(
        "IDEMPOTENCY_TEST_MARIADB_URL",
        "IDEMPOTENCY_TEST_MYSQL_USER",
        "IDEMPOTENCY_TEST_MYSQL_PASSWORD");
  }

  @Override
  List<String> unreachableStoreOptions(int port) {
    return List.of(
        "--jdbc-url",
        "jdbc:mariadb://127.0.0.1:" + port + "/none?connectTimeout=5000",
        "--user",
        "u");
  }
}
