package dev.idempotency.examples.bootcrash;

import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /ledger/jdbc} and {@code POST /ledger/jpa}: one ledger row per request, then {@code
 * WRITTEN <key>} on stdout. With {@code crash.hold-after-write=true} the controller then blocks
 * until the process is killed: the row written, the request's transaction not committed (in one
 * transaction), which is where the test kills it. The response carries an id of its own per run, so
 * that a replay of another run's bytes would show.
 */
@RestController
public class LedgerController {
  private final LedgerWrites writes;
  private final boolean holdAfterWrite;

  public LedgerController(
      LedgerWrites writes, @Value("${crash.hold-after-write:false}") boolean holdAfterWrite) {
    this.writes = writes;
    this.holdAfterWrite = holdAfterWrite;
  }

  @PostMapping("/ledger/jdbc")
  public ResponseEntity<String> viaJdbcTemplate(@RequestHeader("Idempotency-Key") String key)
      throws InterruptedException {
    writes.viaJdbcTemplate(key);
    return written(key, "jdbc");
  }

  @PostMapping("/ledger/jpa")
  public ResponseEntity<String> viaJpa(@RequestHeader("Idempotency-Key") String key)
      throws InterruptedException {
    writes.viaJpa(key);
    return written(key, "jpa");
  }

  private ResponseEntity<String> written(String key, String writer) throws InterruptedException {
    say("WRITTEN " + key);
    if (holdAfterWrite) {
      Thread.sleep(Long.MAX_VALUE); // until kill -9
    }
    return ResponseEntity.status(201)
        .header("Content-Type", "application/json")
        .body(
            "{\"key\":\""
                + key
                + "\",\"writer\":\""
                + writer
                + "\",\"run\":\""
                + UUID.randomUUID()
                + "\"}");
  }

  /** One line on stdout, flushed: the test polls the worker's output file for it. */
  static void say(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }
}
