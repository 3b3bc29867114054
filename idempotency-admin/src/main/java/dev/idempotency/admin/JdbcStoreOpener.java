package dev.idempotency.admin;

import dev.idempotency.admin.AdminCli.Args;
import dev.idempotency.admin.AdminCli.UsageException;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStoreBuilder;
import java.util.Map;

/**
 * Opens a JDBC store from {@code --jdbc-url}, {@code --user}, {@code --password} and {@code
 * --table}; the first three default to {@code $IDEMPOTENCY_ADMIN_JDBC_URL}, {@code _USER} and
 * {@code _PASSWORD}, so that a password need not be on the command line. Each call opens a
 * connection of its own ({@link DriverManagerDataSource}), so there is nothing to close.
 */
final class JdbcStoreOpener {
  private JdbcStoreOpener() {}

  static OpenStore open(Args args, Map<String, String> env) throws UsageException {
    String url = args.requiredOrEnv("--jdbc-url", env, "IDEMPOTENCY_ADMIN_JDBC_URL");
    String user = args.orEnv("--user", env, "IDEMPOTENCY_ADMIN_JDBC_USER").orElse(null);
    String password = args.orEnv("--password", env, "IDEMPOTENCY_ADMIN_JDBC_PASSWORD").orElse(null);
    JdbcKeyStoreBuilder builder =
        JdbcKeyStore.builder(new DriverManagerDataSource(url, user, password));
    if (args.get("--table").isPresent()) {
      try {
        builder.tableName(args.get("--table").get());
      } catch (IllegalArgumentException e) {
        throw new UsageException("--table: " + e.getMessage());
      }
    }
    return new OpenStore(builder.build(), () -> {});
  }
}
