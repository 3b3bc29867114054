package dev.idempotency.benchmarks;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bytes of heap per completed record in {@link dev.idempotency.core.InMemoryKeyStore}: the heap in
 * use after a full collection with {@code N} records, minus the heap in use with none, divided by
 * {@code N}. The response is a typical small JSON body (about 100 bytes) with two headers; the key
 * a UUID. Not JMH: it measures space, not time.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.idempotency.benchmarks.MemoryFootprint 200000
 * }</pre>
 */
public final class MemoryFootprint {
  private MemoryFootprint() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    StoredResponse response =
        StoredResponse.of(
            201,
            Map.of(
                "Content-Type",
                List.of("application/json"),
                "Location",
                List.of("/payments/pay_123456789")),
            ("{\"id\":\"pay_123456789\",\"status\":\"succeeded\",\"amount\":4200,\"currency\":\"EUR\","
                    + "\"customer\":\"cus_42\"}")
                .getBytes(StandardCharsets.UTF_8));
    Fingerprint fingerprint = Fingerprint.of(new byte[32]);
    long before = usedAfterGc();
    InMemoryKeyStore store = new InMemoryKeyStore();
    Instant now = Instant.now();
    for (int i = 0; i < n; i++) {
      RecordId id = RecordId.of("account-" + (i % 1000), java.util.UUID.randomUUID().toString());
      ClaimOutcome.Claimed claimed =
          (ClaimOutcome.Claimed)
              store.claim(
                  new ClaimRequest(
                      id, fingerprint, now, Duration.ofSeconds(30), Duration.ofHours(24)));
      // every record gets its own response copy, as records that arrived over the network would
      store.complete(
          id, claimed.fence(), StoredResponse.of(201, response.headers(), response.body()), now);
    }
    long after = usedAfterGc();
    System.out.printf(
        Locale.ROOT,
        "%d records, %.0f bytes of heap per completed record (body %d bytes)%n",
        store.size(),
        (after - before) / (double) n,
        response.bodyLength());
  }

  private static long usedAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
