package dev.idempotency.servlet;

import dev.idempotency.store.jdbc.TestDatabases;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Test servers' addresses from the environment, and a loopback port nothing listens on. */
final class TestEnv {
  private TestEnv() {}

  /**
   * The value of an {@code IDEMPOTENCY_TEST_*} variable; when missing, fails the test if {@code CI=true}, else
   * skips it, with the instruction to start the servers.
   */
  static String require(String variable) {
    return TestDatabases.require(variable).get(0);
  }

  /** A loopback port that was free a moment ago (bound, then closed): connections to it are refused. */
  static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
