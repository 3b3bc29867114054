package dev.idempotency.store.redis.internal;

import static dev.idempotency.store.redis.internal.RedisCalls.ascii;
import static dev.idempotency.store.redis.internal.RedisCalls.number;

import dev.idempotency.RecordId;
import dev.idempotency.spi.PageCursor;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The listing of records ({@link dev.idempotency.spi.KeyStore#list}) over the store's own indexes,
 * not a {@code SCAN} of the keyspace: the in-flight records are in each shard's lease index (by
 * lease end), the completed ones in its completion index (by completion time). A listing walks the
 * shards in turn, and each shard's index in its order (score, then member) from the cursor's
 * position, with {@link Script#LIST}: the due range ({@code score <= now}) for the abandoned, the
 * rest for the live, all of it for the completed; then reads the records it found ({@link
 * Script#RECORDS}) and keeps those that match the selection by their own fields (an index entry
 * whose record expired is skipped). A scope is matched in the script by the member's prefix, which
 * is the scope's whole encoded name and its dot. Every script touches one shard's keys, so on a
 * Cluster each goes to the node that holds that shard.
 *
 * <p>The cursor is the last index position looked at, {@code rs.<shard>.<score>.<member>}, or the
 * next shard's start, {@code rs.<shard>}: a record whose score does not change keeps its place
 * whatever comes or goes around it. A call looks at no more than {@code 10 * limit + 100} index
 * entries, so a page may hold fewer records than the limit and still name a next page. Records come
 * shard by shard, and within a shard by lease end or completion time. Thread-safe and immutable.
 */
public final class ShardListing {
  private static final String PREFIX = "rs.";

  private final RedisCalls calls;
  private final KeyLayout layout;

  /**
   * @param calls the store's commands
   * @param layout the store's key layout
   */
  public ShardListing(RedisCalls calls, KeyLayout layout) {
    this.calls = calls;
    this.layout = layout;
  }

  /** A position in the walk: a shard, and the last entry looked at in it (empty strings: none). */
  private record Position(int shard, String score, String member) {
    PageCursor cursor() {
      return new PageCursor(
          score.isEmpty() ? PREFIX + shard : PREFIX + shard + "." + score + "." + member);
    }
  }

  /**
   * One page of {@code query}.
   *
   * @param at the scripts' {@code now} argument
   * @throws IllegalArgumentException if the query's cursor was not made by this store
   */
  public RecordPage list(RecordQuery query, byte[] at) {
    Position position = query.after().map(this::parse).orElse(new Position(0, "", ""));
    RecordSelection selection = query.selection();
    String range =
        switch (selection) {
          case COMPLETE -> "all";
          case LIVE -> "live";
          default -> "due";
        };
    String prefix = query.scope().map(KeyLayout::scopePrefix).orElse("");
    long budget = 10L * query.limit() + 100;
    long looked = 0;
    List<RecordSnapshot> page = new ArrayList<>();
    while (position.shard() < layout.shards() && page.size() < query.limit() && looked < budget) {
      int shard = position.shard();
      byte[] index =
          selection == RecordSelection.COMPLETE
              ? layout.completionIndex(shard)
              : layout.leaseIndex(shard);
      List<Object> reply =
          calls.script(
              "list",
              Script.LIST,
              new byte[][] {index},
              at,
              ascii(range),
              ascii(position.score()),
              ascii(position.member()),
              number(query.limit() - page.size()),
              ascii(prefix),
              number(budget - looked));
      Instant now = Micros.toInstant(Long.parseLong(RedisCalls.text(reply, 0)));
      List<Object> entries = RedisCalls.list(reply.get(1));
      looked += RedisCalls.number(reply, 5);
      page.addAll(matching(entries, selection, now));
      position =
          RedisCalls.number(reply, 4) == 1
              ? new Position(shard + 1, "", "")
              : new Position(shard, RedisCalls.text(reply, 2), RedisCalls.text(reply, 3));
    }
    Optional<PageCursor> next =
        position.shard() < layout.shards() ? Optional.of(position.cursor()) : Optional.empty();
    return new RecordPage(page, next);
  }

  /** The records the entries {@code member, score, …} name that match {@code selection}. */
  private List<RecordSnapshot> matching(
      List<Object> entries, RecordSelection selection, Instant now) {
    List<RecordSnapshot> out = new ArrayList<>();
    if (entries.isEmpty()) {
      return out;
    }
    List<String> members = new ArrayList<>();
    for (int i = 0; i < entries.size(); i += 2) {
      members.add(RedisCalls.text(entries, i));
    }
    byte[][] records = new byte[members.size()][];
    for (int i = 0; i < members.size(); i++) {
      records[i] = layout.record(members.get(i));
    }
    List<Object> rows = calls.script("list", Script.RECORDS, records, new byte[0]);
    for (int i = 0; i < rows.size(); i++) {
      RecordId id = KeyLayout.idOf(members.get(i));
      Replies.snapshot(id, rows.get(i)).filter(s -> selection.matches(s, now)).ifPresent(out::add);
    }
    return out;
  }

  private Position parse(PageCursor cursor) {
    String[] parts = cursor.value().split("\\.", 4);
    try {
      if (!cursor.value().startsWith(PREFIX) || parts.length == 3) {
        throw new IllegalArgumentException("not a listing cursor of the Redis store");
      }
      int shard = Integer.parseInt(parts[1]);
      if (shard < 0 || shard >= layout.shards()) {
        throw new IllegalArgumentException("no shard " + shard);
      }
      if (parts.length == 2) {
        return new Position(shard, "", "");
      }
      Long.parseLong(parts[2]);
      return new Position(shard, parts[2], parts[3]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "cursor "
              + cursor.value()
              + " was not made by this store: pass on the cursor of its last page",
          e);
    }
  }
}
