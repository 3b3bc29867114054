package dev.idempotency.servlet;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Assumptions;

/** Test servers' addresses from the environment, and a loopback port nothing listens on. */
final class TestEnv {
  private TestEnv() {}

  /**
   * The value of an {@code IDEMPOTENCY_TEST_*} variable; when missing, fails the test if {@code CI=true}, else
   * skips it, with the instruction to start the servers.
   */
  static String require(String variable) {
    String value = System.getenv(variable);
    if (value == null || value.isBlank()) {
      String message = "Environment variable " + variable + " is not set: start the test databases with "
          + "`eval \"$(bash scripts/services.sh)\"` from the repository root, then run the tests again.";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail(message);
      }
      Assumptions.abort(message);
    }
    return value;
  }

  /** A loopback port that was free a moment ago (bound, then closed): connections to it are refused. */
  static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
