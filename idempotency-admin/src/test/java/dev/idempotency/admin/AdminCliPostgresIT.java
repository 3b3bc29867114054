package dev.idempotency.admin;

import java.util.List;

/** {@link AdminCliContract} on the real PostgreSQL. */
class AdminCliPostgresIT extends AdminCliJdbc {
  AdminCliPostgresIT() {
    super("IDEMPOTENCY_TEST_PG_URL", "IDEMPOTENCY_TEST_PG_USER", "IDEMPOTENCY_TEST_PG_PASSWORD");
  }

  @Override
  List<String> unreachableStoreOptions(int port) {
    return List.of(
        "--jdbc-url",
        "jdbc:postgresql://127.0.0.1:" + port + "/none?connectTimeout=5",
        "--user",
        "u");
  }
}
