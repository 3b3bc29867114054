package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.testing.CompletionOutageGate;
import dev.idempotency.testing.LoopbackPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outage gate on H2 served by its own TCP server ({@code org.h2.tools.Server}) from a file: an
 * outage of the store while the responses are stored, shorter than the lease, runs every key's work
 * once. The outage stops the server, which closes every connection and the database, and starts a
 * new one on the same port and file. To show that the gate can fail, an outage longer than the
 * lease.
 */
@Timeout(120)
class H2CompletionOutageGateTest {
  @TempDir Path dir;
  private int port;
  private Server server;

  @BeforeEach
  void startServer() throws Exception {
    port = LoopbackPorts.closed();
    server = newServer().start();
  }

  @AfterEach
  void stopServer() {
    server.stop();
  }

  private Server newServer() throws SQLException {
    return Server.createTcpServer(
        "-tcpPort", Integer.toString(port), "-baseDir", dir.toString(), "-ifNotExists");
  }

  private CompletionOutageGate.Fault restart() {
    return JdbcOutageGate.fault(
        () -> {
          server.stop();
          assertThat(server.isRunning(false)).as("stopped").isFalse();
        },
        () -> server = newServer().start());
  }

  private String url() {
    // WRITE_DELAY=0: a commit is on the file before the server can stop
    return "jdbc:h2:tcp://127.0.0.1:" + port + "/gate;WRITE_DELAY=0";
  }

  @Test
  void aServerStoppedForHalfTheLeaseRunsEveryKeyOnce() throws Exception {
    CompletionOutageGate.Result result =
        JdbcOutageGate.run(
            "h2_restarted", name -> JdbcOutageGate.pool(url(), "sa", "", name), restart());

    assertThat(Files.exists(dir.resolve("gate.mv.db"))).as("a file database").isTrue();
    JdbcOutageGate.assertEveryKeyRanOnce(result);
  }

  @Test
  @Tag("slow")
  void aServerStoppedLongerThanTheLeaseIsCaughtRunningKeysTwice() throws Exception {
    CompletionOutageGate.Result result =
        JdbcOutageGate.run(
            "h2_restarted_long",
            name -> JdbcOutageGate.pool(url(), "sa", "", name),
            restart(),
            Duration.ofSeconds(3),
            Duration.ofSeconds(8));

    assertThat(result.keysRunTwice()).as("%s", result).isPositive();
  }
}
