package dev.idempotency.micrometer.internal;

import dev.idempotency.event.IdempotencyEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;

/**
 * The two counters the design alarms on, from the engine's events: the events that can lead to a
 * duplicate side effect, by cause, and the keys found orphaned (claimed, never completed), by who
 * found them. Every counter is registered up front, at zero, so that a rate over a window is
 * defined from the first scrape, before anything happened. Thread-safe.
 */
public final class AlarmMeters {
  /**
   * The causes of the duplicate-risk counter: a takeover of a record that has no recovery point
   * (the earlier owner's work may have run, and runs again from the start), a completion that
   * stored nothing (the record stays in flight, and a retry after the lease runs the work again), a
   * lease lost after the work returned (the new owner runs it again).
   */
  public static final List<String> CAUSES =
      List.of("takeover_without_recovery_point", "completion_failed", "lease_lost_after_work");

  /**
   * Who found a key orphaned: a takeover (a retry or the completer claimed an in-flight record
   * whose lease had expired) or the reaper (deleted in flight past retention, never completed).
   */
  public static final List<String> FOUND_BY = List.of("takeover", "reaper");

  private final Counter takeoverWithoutPoint;
  private final Counter completionFailed;
  private final Counter leaseLostAfterWork;
  private final Counter orphanedByTakeover;
  private final Counter orphanedByReaper;

  /**
   * Registers the counters {@code duplicateRisk} (tag {@code cause}) and {@code orphaned} (tag
   * {@code found_by}) in {@code registry}, each with {@code tags}.
   */
  public AlarmMeters(MeterRegistry registry, Tags tags, String duplicateRisk, String orphaned) {
    String risk = "events that can lead to a duplicate side effect: zero by design, alarm on any";
    takeoverWithoutPoint = counter(registry, tags, duplicateRisk, risk, "cause", CAUSES.get(0));
    completionFailed = counter(registry, tags, duplicateRisk, risk, "cause", CAUSES.get(1));
    leaseLostAfterWork = counter(registry, tags, duplicateRisk, risk, "cause", CAUSES.get(2));
    String found = "keys found orphaned: claimed, lease expired, never completed";
    orphanedByTakeover = counter(registry, tags, orphaned, found, "found_by", FOUND_BY.get(0));
    orphanedByReaper = counter(registry, tags, orphaned, found, "found_by", FOUND_BY.get(1));
  }

  private static Counter counter(
      MeterRegistry registry,
      Tags tags,
      String name,
      String description,
      String tag,
      String value) {
    return Counter.builder(name)
        .description(description)
        .tags(tags)
        .tag(tag, value)
        .register(registry);
  }

  /** Counts {@code event} if it is one of the alarms'. */
  public void onEvent(IdempotencyEvent event) {
    if (event instanceof IdempotencyEvent.TakenOver e) {
      // every takeover claimed a record whose owner's lease had expired before it completed
      orphanedByTakeover.increment();
      if (e.resumeFrom().isEmpty()) {
        // nothing says how far the earlier owner got: the work runs again from its start. One
        // transaction on a store that claims inside it never leaves such a record (a crash rolls
        // the claim back with the work), so the earlier owner ran stepped work, or claimed first
        // and crashed before its commit; the engine cannot tell which, and counts both
        takeoverWithoutPoint.increment();
      }
    } else if (event instanceof IdempotencyEvent.CompletionFailed) {
      completionFailed.increment();
    } else if (event instanceof IdempotencyEvent.LeaseLost e && e.afterWork()) {
      leaseLostAfterWork.increment();
    }
  }

  /** Counts the in-flight records one reaper run deleted: orphaned keys nobody finished. */
  public void reaperDeletedUnfinished(int unfinished) {
    orphanedByReaper.increment(unfinished);
  }
}
