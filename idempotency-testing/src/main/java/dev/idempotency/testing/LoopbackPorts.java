package dev.idempotency.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for tests of what happens when a server is not there. */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /**
   * A loopback port that was free a moment ago (bound, then closed): connections to it are refused,
   * so a store or client pointed at it meets a server that is down.
   *
   * @return the port
   * @throws IOException if no port could be bound
   */
  public static int closed() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
