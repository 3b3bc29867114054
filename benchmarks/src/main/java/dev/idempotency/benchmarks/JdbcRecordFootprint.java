package dev.idempotency.benchmarks;

import dev.idempotency.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Disk bytes per completed record in the JDBC store's table and indexes, at several record counts,
 * with the response {@link ScaleBenchmark} stores: whether the cost per record stays flat as the
 * table grows, and what a retention of N records costs on disk.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.idempotency.benchmarks.JdbcRecordFootprint
 * POSTGRESQL out.txt 1000000 10000000}
 */
public final class JdbcRecordFootprint {
  private JdbcRecordFootprint() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: JdbcRecordFootprint <POSTGRESQL|MARIADB> <out.txt> <count>...");
      System.exit(2);
    }
    StoreType type = StoreType.valueOf(args[0]);
    StringBuilder out = new StringBuilder();
    out.append("Disk bytes per completed record, ").append(type).append('\n');
    try (JdbcFixture fixture = (JdbcFixture) type.open()) {
      for (int i = 2; i < args.length; i++) {
        int count = Integer.parseInt(args[i]);
        fixture.clear();
        long start = System.nanoTime();
        fixture.preload(
            AbstractStoreBenchmark.SCOPE,
            "existing-",
            count,
            AbstractStoreBenchmark.FINGERPRINT,
            AbstractStoreBenchmark.RESPONSE);
        long loadMillis = (System.nanoTime() - start) / 1_000_000;
        Map<String, Long> sizes = fixture.storageBytes();
        long total = sizes.values().stream().mapToLong(Long::longValue).sum();
        out.append(
            String.format(
                Locale.ROOT, "%n%,d records (loaded in %,d ms):%n", count + 1, loadMillis));
        sizes.forEach(
            (what, bytes) ->
                out.append(
                    String.format(
                        Locale.ROOT,
                        "  %-60s %,15d bytes  %7.1f per record%n",
                        what,
                        bytes,
                        (double) bytes / (count + 1))));
        out.append(
            String.format(
                Locale.ROOT,
                "  %-60s %,15d bytes  %7.1f per record%n",
                "total",
                total,
                (double) total / (count + 1)));
        System.out.print(out);
      }
    }
    StoredResponse stored = AbstractStoreBenchmark.RESPONSE;
    out.append(
        String.format(
            Locale.ROOT,
            "%nresponse stored per record: status %d, %d body bytes, no headers%n",
            stored.status(),
            stored.body().length));
    Files.writeString(Path.of(args[1]), out.toString(), StandardCharsets.UTF_8);
  }
}
