package dev.idempotency.examples;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** What one run of the fleet observed, from the clients' side. Thread-safe. */
final class RunStats {
  final LongAdder payments = new LongAdder();
  final LongAdder succeeded = new LongAdder();
  final LongAdder failed = new LongAdder();
  final LongAdder replays = new LongAdder();
  final LongAdder clientAttempts = new LongAdder();
  final LongAdder inFlightConflicts = new LongAdder();
  final Map<String, LongAdder> retriesByCause = new ConcurrentHashMap<>();
  final Map<String, LongAdder> failuresByReason = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Long> latenciesMicros = new ConcurrentLinkedQueue<>();
  final AtomicLong done = new AtomicLong();

  void retried(String cause) {
    String category = category(cause);
    retriesByCause.computeIfAbsent(category, k -> new LongAdder()).increment();
    if (cause.contains("idempotency_request_in_flight")) {
      inFlightConflicts.increment();
    }
  }

  void failed(String reason) {
    failed.increment();
    failuresByReason.computeIfAbsent(reason, k -> new LongAdder()).increment();
  }

  void latency(long micros) {
    latenciesMicros.add(micros);
  }

  long retries() {
    return retriesByCause.values().stream().mapToLong(LongAdder::sum).sum();
  }

  Map<String, Long> retriesByCauseSorted() {
    Map<String, Long> sorted = new TreeMap<>();
    retriesByCause.forEach((k, v) -> sorted.put(k, v.sum()));
    return sorted;
  }

  Map<String, Long> failuresSorted() {
    Map<String, Long> sorted = new TreeMap<>();
    failuresByReason.forEach((k, v) -> sorted.put(k, v.sum()));
    return sorted;
  }

  /**
   * The latency percentile {@code p} (0 to 100) of whole payments, retries included, in
   * milliseconds.
   */
  double percentileMillis(double p) {
    long[] values = latenciesMicros.stream().mapToLong(Long::longValue).toArray();
    if (values.length == 0) {
      return 0;
    }
    Arrays.sort(values);
    int index = (int) Math.ceil(p / 100 * values.length) - 1;
    return values[Math.max(0, Math.min(values.length - 1, index))] / 1000.0;
  }

  /**
   * "HTTP 503", "HTTP 409 (idempotency_request_in_flight)", or an exception's simple class name.
   */
  static String category(String cause) {
    if (cause.startsWith("HTTP ")) {
      return cause;
    }
    int colon = cause.indexOf(':');
    String type = colon > 0 ? cause.substring(0, colon) : cause;
    return type.substring(type.lastIndexOf('.') + 1);
  }
}
