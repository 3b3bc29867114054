package dev.idempotency.spi;

import dev.idempotency.Scope;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The arguments of {@link KeyStore#list(RecordQuery)}: which records, of which scope, judged at
 * which time, how many at most, and from where.
 *
 * @param selection the records' state and lease (see {@link RecordSelection})
 * @param scope only records of this scope; empty for every scope
 * @param now the time leases are judged by (a store with {@link StoreCapability#SERVER_CLOCK} uses
 *     its own)
 * @param limit the most records one page holds, 1 to {@value #MAX_LIMIT}
 * @param after where the page starts: the {@link RecordPage#next()} of the previous page; empty for
 *     the first
 */
public record RecordQuery(
    RecordSelection selection,
    Optional<Scope> scope,
    Instant now,
    int limit,
    Optional<PageCursor> after) {
  /** The largest page: a listing holds its page in memory, so pages stay small. */
  public static final int MAX_LIMIT = 10_000;

  /**
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code limit} is not 1 to {@value #MAX_LIMIT}
   */
  public RecordQuery {
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(after, "after");
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", but was " + limit);
    }
  }

  /** The first page of {@code selection} in every scope. */
  public static RecordQuery of(RecordSelection selection, Instant now, int limit) {
    return new RecordQuery(selection, Optional.empty(), now, limit, Optional.empty());
  }

  /** This query restricted to {@code scope}. */
  public RecordQuery inScope(Scope scope) {
    return new RecordQuery(selection, Optional.of(scope), now, limit, after);
  }

  /** This query from {@code cursor} on: the page after the one that returned it. */
  public RecordQuery after(PageCursor cursor) {
    return new RecordQuery(selection, scope, now, limit, Optional.of(cursor));
  }
}
