package dev.idempotency.store.jdbc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/** PostgreSQL servers of the failover tests' own, reached on loopback as {@code postgres}. */
final class PostgresNodes {
  static final Path PG_BIN = Path.of("/usr/lib/postgresql/15/bin");

  private PostgresNodes() {}

  static String url(int port) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=2&socketTimeout=10";
  }

  /**
   * A URL on both servers, as an application reaches a primary that may move: the driver tries each
   * and keeps the one that accepts writes.
   */
  static String primaryUrl(int port1, int port2) {
    return "jdbc:postgresql://127.0.0.1:"
        + port1
        + ",127.0.0.1:"
        + port2
        + "/postgres?targetServerType=primary&hostRecheckSeconds=1"
        + "&connectTimeout=2&socketTimeout=5&loginTimeout=3";
  }

  static void exec(int port, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(port), "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static boolean inRecovery(int port) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(port), "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  /** Waits until one standby streams from the primary on {@code primaryPort}, sync or async. */
  static void awaitStreaming(int primaryPort, String syncState, int seconds) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      try (Connection c = DriverManager.getConnection(url(primaryPort), "postgres", "");
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT count(*) FROM pg_stat_replication"
                      + " WHERE state = 'streaming' AND sync_state = '"
                      + syncState
                      + "'")) {
        rs.next();
        if (rs.getInt(1) == 1) {
          return;
        }
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new IllegalStateException(
        "no " + syncState + " standby streaming within " + seconds + " s");
  }

  /**
   * Waits until nothing listens on {@code port} any more: the killed server is gone. Fails after 5
   * s, so that a kill that missed cannot pass for a failover.
   */
  static void awaitGone(int port) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < end) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      } catch (IOException refused) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
    throw new IllegalStateException(
        "the server on port " + port + " still listens 5 s after the kill");
  }

  static long postmasterPid(Path data) throws IOException {
    return Long.parseLong(
        Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.UTF_8).get(0).trim());
  }

  /**
   * The id of the server's System V segment (line 7 of postmaster.pid, "key id"): a postmaster
   * killed with -9 leaves it behind, {@code ipcrm -m} removes it.
   */
  static String sysvShmid(Path data) throws IOException {
    String[] keyAndId =
        Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.UTF_8)
            .get(6)
            .trim()
            .split("\\s+");
    return keyAndId[keyAndId.length - 1];
  }
}
