package dev.idempotency.store.dynamodb;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One application instance of {@link DynamoDbProcessRaceIT}, in a JVM of its own: its own SDK
 * client, store and engine. It prints {@code READY}, waits for the release file, then runs one
 * request through the engine. The operation records its run as an item of the ledger table (a run
 * of its own per execution, so a second execution would be a second item), and answers with a body
 * naming this process.
 *
 * <p>Arguments: endpoint, records table, ledger table, key, release file.
 */
public final class RaceWorker {
  private RaceWorker() {}

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    String table = args[1];
    String ledger = args[2];
    RecordId id = RecordId.of("race", args[3]);
    Path release = Path.of(args[4]);
    long pid = ProcessHandle.current().pid();
    try (DynamoDbClient client = Dynalite.client(endpoint);
        DynamoDbKeyStore store = DynamoDbKeyStore.builder(client).tableName(table).build();
        IdempotencyEngine engine =
            IdempotencyEngine.builder(store)
                .config(
                    IdempotencyConfig.builder()
                        .lease(Duration.ofSeconds(10))
                        .inFlightPolicy(
                            InFlightPolicy.waitUpTo(Duration.ofSeconds(20), Duration.ofMillis(50)))
                        .build())
                .build()) {
      store.lookup(id); // the connection is open and the classes are loaded before the race
      System.out.println("READY");
      System.out.flush();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!Files.exists(release)) {
        if (System.nanoTime() > deadline) {
          System.out.println("NEVER RELEASED");
          System.exit(3);
        }
        Thread.sleep(1);
      }
      Outcome outcome =
          engine.execute(
              id,
              Fingerprint.of(new byte[] {42}),
              Work.stepped(
                  execution -> {
                    client.putItem(
                        b ->
                            b.tableName(ledger)
                                .item(
                                    Map.of(
                                        "pk", AttributeValue.fromS(UUID.randomUUID().toString()),
                                        "worker", AttributeValue.fromN(Long.toString(pid)))));
                    Thread.sleep(300); // the others claim while this runs, and wait
                    return StoredResponse.ofUtf8(201, "{\"charged-by\":" + pid + "}");
                  }));
      if (outcome instanceof Outcome.Executed e) {
        System.out.println("EXECUTED " + e.response().bodyAsUtf8() + " stored=" + e.stored());
      } else if (outcome instanceof Outcome.Replayed r) {
        System.out.println("REPLAYED " + r.response().bodyAsUtf8());
      } else {
        System.out.println("OTHER " + outcome);
      }
    }
    System.out.flush();
  }
}
