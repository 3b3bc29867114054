package dev.idempotency.store.redis.internal;

import static dev.idempotency.store.redis.internal.RedisCalls.ascii;
import static dev.idempotency.store.redis.internal.RedisCalls.number;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.spi.RecordSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The store's calls that span index shards: renewals, {@code findAbandoned} and the reaper. Each
 * script touches the keys of one shard only, all of them passed as {@code KEYS} (Redis Cluster
 * routes and checks a script by its declared keys), so the index walks are two steps: a script
 * lists the due members of a shard's indexes ({@link Script#DUE}), then a script over exactly those
 * records reads or acts on them, re-checking each against its record. Every round trip (a script,
 * or the scripts of every shard sent together) has the command timeout. Thread-safe and immutable.
 */
public final class IndexShardCalls {
  /** The most leases one renewal script renews, so that no script holds Redis for long. */
  private static final int RENEWALS_PER_SCRIPT = 256;

  /** The most candidates one reaper script looks at. */
  private static final int REAP_PAGE = 512;

  private final RedisCalls calls;
  private final KeyLayout layout;

  /**
   * @param calls the store's commands
   * @param layout the store's key layout
   */
  public IndexShardCalls(RedisCalls calls, KeyLayout layout) {
    this.calls = calls;
    this.layout = layout;
  }

  /**
   * What a renewal found, per lease: refused (with what was found instead), unknown (its script
   * failed: a node down or silent, a reply past the deadline), or renewed (every other).
   *
   * @param refused the refused leases, each with what the store found
   * @param unknown the leases whose script failed
   * @param failures what each failed script threw, in the order awaited
   */
  public record Renewals(
      Map<RecordId, String> refused, Set<RecordId> unknown, List<RuntimeException> failures) {}

  /**
   * Renews {@code leases}: one script per shard and 256 leases, all sent before the first reply is
   * awaited, every reply awaited within one command timeout. A script that fails leaves its leases
   * unknown and the others stand: one shard down does not hide what the others did.
   *
   * @param at the scripts' {@code now} argument
   */
  public Renewals renew(
      Map<RecordId, FenceToken> leases,
      byte[] at,
      long leaseMicros,
      long recordExpiryMillis,
      long counterExpiryMillis) {
    Map<Integer, List<Map.Entry<RecordId, FenceToken>>> byShard = new HashMap<>();
    leases
        .entrySet()
        .forEach(e -> byShard.computeIfAbsent(shardOf(e.getKey()), s -> new ArrayList<>()).add(e));
    List<List<Map.Entry<RecordId, FenceToken>>> batches = new ArrayList<>();
    List<RedisCalls.PendingScript> pending = new ArrayList<>();
    byShard.forEach(
        (shard, ids) -> {
          for (int from = 0; from < ids.size(); from += RENEWALS_PER_SCRIPT) {
            List<Map.Entry<RecordId, FenceToken>> batch =
                ids.subList(from, Math.min(ids.size(), from + RENEWALS_PER_SCRIPT));
            byte[][] keys = new byte[1 + 2 * batch.size()][];
            byte[][] args = new byte[4 + 2 * batch.size()][];
            keys[0] = layout.leaseIndex(shard);
            args[0] = at;
            args[1] = number(leaseMicros);
            args[2] = number(recordExpiryMillis);
            args[3] = number(counterExpiryMillis);
            for (int i = 0; i < batch.size(); i++) {
              String member = KeyLayout.member(batch.get(i).getKey());
              keys[1 + 2 * i] = layout.record(member);
              keys[2 + 2 * i] = layout.counter(member);
              args[4 + 2 * i] = ascii(member);
              args[5 + 2 * i] = number(batch.get(i).getValue().value());
            }
            batches.add(batch);
            pending.add(calls.send(Script.RENEW, keys, args));
          }
        });
    List<RedisCalls.Reply> replies =
        calls.awaitEach("renewal of " + leases.size() + " leases", pending, calls.deadline());
    Map<RecordId, String> refused = new HashMap<>();
    Set<RecordId> unknown = new HashSet<>();
    List<RuntimeException> failures = new ArrayList<>();
    for (int b = 0; b < pending.size(); b++) {
      List<Map.Entry<RecordId, FenceToken>> batch = batches.get(b);
      RuntimeException failure = replies.get(b).failure();
      if (failure != null) {
        batch.forEach(lease -> unknown.add(lease.getKey()));
        failures.add(failure);
        continue;
      }
      List<Object> reply = Objects.requireNonNull(replies.get(b).value());
      for (int i = 0; i + 1 < reply.size(); i += 2) {
        refused.put(
            batch.get((int) RedisCalls.number(reply, i) - 1).getKey(),
            RedisCalls.text(reply, i + 1));
      }
    }
    return new Renewals(refused, unknown, failures);
  }

  /**
   * The in-flight records whose lease ended by the cutoff, oldest lease first, at most {@code
   * limit}. Per shard, pages of {@code limit} lease-index entries are listed and their records read
   * until {@code limit} are found or the shard's due entries end; a shard looks at no more than
   * {@code 10 * limit + 100} entries, so that a mass of entries whose records are already gone
   * cannot make the call unbounded (they are the reaper's to drop). The shards go in rounds, every
   * shard's script of a round sent at once.
   */
  public List<RecordSnapshot> abandoned(byte[] at, int limit) {
    long budget = 10L * limit + 100;
    List<ShardWalk> walks = new ArrayList<>();
    for (int shard = 0; shard < layout.shards(); shard++) {
      walks.add(new ShardWalk(shard, at));
    }
    List<RecordSnapshot> found = new ArrayList<>();
    List<ShardWalk> active = walks;
    while (!active.isEmpty()) {
      List<RedisCalls.PendingScript> listing = new ArrayList<>();
      for (ShardWalk w : active) {
        int page = (int) Math.min(limit, budget - w.looked);
        w.requested = page;
        listing.add(
            calls.send(
                Script.DUE,
                keys(layout.leaseIndex(w.shard)),
                w.at,
                number(0),
                number(page),
                number(w.looked)));
      }
      long deadline = calls.deadline();
      List<RedisCalls.@Nullable PendingScript> reading = new ArrayList<>();
      List<List<String>> members = new ArrayList<>();
      for (int i = 0; i < active.size(); i++) {
        ShardWalk w = active.get(i);
        List<Object> reply = calls.awaitScript("findAbandoned", listing.get(i), deadline);
        w.cutoff = RedisCalls.number(reply, 0);
        w.at = number(w.cutoff); // later pages judge by the same instant
        List<String> page = texts(RedisCalls.list(reply.get(1)));
        w.looked += page.size();
        w.exhausted = page.size() < w.requested;
        members.add(page);
        byte[][] records = new byte[page.size()][];
        for (int m = 0; m < page.size(); m++) {
          records[m] = layout.record(page.get(m));
        }
        reading.add(page.isEmpty() ? null : calls.send(Script.RECORDS, records, new byte[0]));
      }
      deadline = calls.deadline();
      List<ShardWalk> next = new ArrayList<>();
      for (int i = 0; i < active.size(); i++) {
        ShardWalk w = active.get(i);
        RedisCalls.PendingScript read = reading.get(i);
        if (read != null) {
          List<Object> rows = calls.awaitScript("findAbandoned", read, deadline);
          for (int m = 0; m < rows.size(); m++) {
            String member = members.get(i).get(m);
            RecordSnapshot s = abandonedOrNull(member, rows.get(m), w.cutoff);
            if (s != null && w.seen.add(member)) {
              found.add(s);
              w.found++;
            }
          }
        }
        if (!w.exhausted && w.found < limit && w.looked < budget) {
          next.add(w);
        }
      }
      active = next;
    }
    found.sort(Comparator.comparing(s -> s.leaseExpiresAt().orElseThrow()));
    return List.copyOf(found.subList(0, Math.min(limit, found.size())));
  }

  /**
   * Deletes up to {@code limit} records past retention, shard by shard: completed ones first, then
   * in-flight ones. In each shard, batches of due candidates until the shard has none left or the
   * limit is reached; an index entry whose record is gone is dropped and not counted, and does not
   * end the walk, so the call returns {@code limit} while at least {@code limit} records are
   * eligible.
   */
  public int reap(byte[] at, long retentionMicros, int limit) {
    int deleted = 0;
    for (int shard = 0; shard < layout.shards() && deleted < limit; shard++) {
      byte[] leases = layout.leaseIndex(shard);
      byte[] done = layout.completionIndex(shard);
      deleted += reapIndex(at, retentionMicros, limit - deleted, leases, done, done, "C");
      if (deleted < limit) {
        deleted += reapIndex(at, retentionMicros, limit - deleted, leases, done, leases, "I");
      }
    }
    return deleted;
  }

  /**
   * The reaper's walk of one index ({@code state}: {@code C} the completion index, {@code I} the
   * lease index) of one shard: batches of due candidates until {@code limit} records are deleted or
   * none is left. The records a person keeps stay in the index, at its head: each batch starts
   * after those the batches before held.
   */
  private int reapIndex(
      byte[] at,
      long retentionMicros,
      int limit,
      byte[] leases,
      byte[] done,
      byte[] index,
      String state) {
    int deleted = 0;
    long held = 0;
    while (deleted < limit) {
      int left = limit - deleted;
      List<Object> due =
          calls.script(
              "deleteExpired",
              Script.DUE,
              keys(index),
              at,
              number(retentionMicros),
              number(Math.min(REAP_PAGE, left + 100)),
              number(held));
      List<String> candidates = texts(RedisCalls.list(due.get(1)));
      int n = candidates.size();
      if (n == 0) {
        break;
      }
      byte[][] keys = new byte[2 + n][];
      byte[][] args = new byte[3 + 2 * n][];
      keys[0] = leases;
      keys[1] = done;
      args[0] = at;
      args[1] = number(retentionMicros);
      args[2] = number(left);
      for (int i = 0; i < n; i++) {
        String m = candidates.get(i);
        keys[2 + i] = layout.record(m);
        args[3 + 2 * i] = ascii(m);
        args[4 + 2 * i] = ascii(state);
      }
      List<Object> reply = calls.script("deleteExpired", Script.REAP, keys, args);
      deleted += (int) RedisCalls.number(reply, 0);
      held += RedisCalls.number(reply, 1);
    }
    return deleted;
  }

  /** One shard's walk of its lease index in {@link #abandoned}. */
  private static final class ShardWalk {
    final int shard;
    final Set<String> seen = new HashSet<>();
    byte[] at;
    long cutoff;
    long looked;
    int requested;
    int found;
    boolean exhausted;

    ShardWalk(int shard, byte[] at) {
      this.shard = shard;
      this.at = at;
    }
  }

  /** The snapshot of a record read by {@link Script#RECORDS}, if in flight with its lease ended. */
  private static @Nullable RecordSnapshot abandonedOrNull(String member, Object row, long cutoff) {
    Optional<RecordSnapshot> s = Replies.snapshot(KeyLayout.idOf(member), row);
    if (s.isEmpty() || s.get().state() != KeyState.IN_FLIGHT) {
      return null;
    }
    return Micros.of(s.get().leaseExpiresAt().orElseThrow()) <= cutoff ? s.get() : null;
  }

  private int shardOf(RecordId id) {
    return layout.shardOf(KeyLayout.member(id));
  }

  private static List<String> texts(List<Object> members) {
    List<String> out = new ArrayList<>(members.size());
    for (int i = 0; i < members.size(); i++) {
      out.add(RedisCalls.text(members, i));
    }
    return out;
  }

  private static byte[][] keys(byte[]... keys) {
    return keys;
  }
}
