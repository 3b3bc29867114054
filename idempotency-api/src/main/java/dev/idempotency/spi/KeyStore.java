package dev.idempotency.spi;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where idempotency records live: the storage that arbitrates claims and keeps results for replay.
 *
 * <h2>The one hard promise: an atomic, fenced claim</h2>
 *
 * {@link #claim(ClaimRequest)} is one atomic operation that the storage arbitrates (a unique
 * constraint, a conditional write, a script that runs alone), never a read followed by a write. Of
 * any number of concurrent claims of one record, at most one returns {@link ClaimOutcome.Claimed};
 * each claim returns a {@link FenceToken} strictly greater than every token issued before for that
 * record, even after the record was released, expired or purged. Every later write of the owner
 * ({@link #heartbeat}, {@link #heartbeatAll}, {@link #checkpoint}, {@link #complete}, {@link
 * #release}) takes effect only while the owner's token is still the record's current one and the
 * record is still {@code IN_FLIGHT}; otherwise it changes nothing and throws {@link
 * LeaseLostException} ({@link #heartbeatAll} reports the record as refused instead).
 *
 * <h2>Atomicity and visibility</h2>
 *
 * Every method is atomic and linearizable per record: each call takes effect at one instant between
 * its invocation and its return, and every call that starts after another returned sees its effect.
 * Nothing is promised across records ({@link #findAbandoned} and {@link #deleteExpired} may see
 * some records of a batch before and others after a concurrent change).
 *
 * <h2>Time</h2>
 *
 * Every call carries the engine's {@code now}, read from the engine's {@link
 * java.time.InstantSource}. A store judges leases and windows by it, so tests can drive time with a
 * controllable clock; the store never reads the system clock itself. A store that declares {@link
 * StoreCapability#SERVER_CLOCK} judges them by its server's clock instead (so that instances with
 * skewed clocks agree) and ignores the {@code now} arguments for those decisions. A lease held
 * until {@code t} has expired at every instant {@code >= t}; a record completed at {@code c} is
 * replayed while {@code now < c + replayWindow} and counts as absent from {@code c + replayWindow}
 * on. A store keeps instants with at least millisecond precision.
 *
 * <h2>Argument checks</h2>
 *
 * A {@code null} argument ({@link NullPointerException}) or an out-of-range one ({@link
 * IllegalArgumentException}) is reported before the store is consulted, whatever the fence; such a
 * call changes nothing.
 *
 * <h2>Nulls and exceptions</h2>
 *
 * No argument may be {@code null} ({@link NullPointerException}); no result is {@code null}. Every
 * method may throw {@link StoreUnavailableException} when the storage cannot be reached or does not
 * answer in time: for a claim this means nothing was decided; for a write the caller cannot know
 * whether it took effect, but a repeated fenced write is harmless. {@link KeyStoreException}
 * reports anything else that is wrong with the store itself (a missing table, a corrupt record),
 * with a message that says how to fix it.
 *
 * <h2>Thread safety</h2>
 *
 * Implementations are thread-safe: the engine calls them from many threads at once.
 *
 * <p>The numbered rules, with their rationale, are in the TCK's {@code SPEC.md}; a store is correct
 * when it passes {@code KeyStoreContract}.
 */
public interface KeyStore {

  /**
   * Claims a record, atomically: decides by the record's current state and the request's
   * fingerprint, and returns what it found.
   *
   * <ul>
   *   <li>No record, or a record that counts as absent (released, completed at {@code c} with
   *       {@code now >= c + replayWindow}, purged): creates or replaces it as {@code IN_FLIGHT}
   *       with the request's fingerprint, a lease until {@code now + lease}, no recovery point and
   *       a new fence, and returns {@link ClaimOutcome.Claimed} with {@code takeover = false}.
   *       Whatever fingerprint the earlier record had does not matter: a reused key past the window
   *       is a new request.
   *   <li>A record with another fingerprint that does not count as absent: changes nothing and
   *       returns {@link ClaimOutcome.Mismatch}, whatever its state and whether or not its lease
   *       expired.
   *   <li>{@code IN_FLIGHT} with the same fingerprint and a live lease ({@code now <
   *       leaseExpiresAt}): changes nothing and returns {@link ClaimOutcome.InFlight} with the
   *       lease's remaining time.
   *   <li>{@code IN_FLIGHT} with the same fingerprint and an expired lease: takes it over in the
   *       same atomic step: a new fence, a lease until {@code now + lease}, the recovery point
   *       kept, and returns {@link ClaimOutcome.Claimed} with {@code takeover = true} and {@code
   *       resumeFrom} set to that point.
   *   <li>{@code COMPLETE} within the window with the same fingerprint: changes nothing and returns
   *       {@link ClaimOutcome.Completed} with the stored response, byte for byte.
   * </ul>
   *
   * @param request the record, fingerprint, time, lease and replay window
   * @return what the claim found; exactly one outcome per call
   * @throws NullPointerException if {@code request} is null
   * @throws StoreUnavailableException if the store cannot be reached; nothing was decided
   */
  ClaimOutcome claim(ClaimRequest request);

  /**
   * Sets the owner's lease to end at {@code now + lease} (which may shorten it), if {@code fence}
   * is still the record's current token and the record is {@code IN_FLIGHT}. Allowed also after the
   * lease expired, as long as nobody took the record over: the fence, not the lease, decides
   * ownership.
   *
   * @param id the record
   * @param fence the owner's token
   * @param now the engine's time
   * @param lease the new lease length, positive
   * @throws LeaseLostException if {@code fence} is stale or the record is not in flight; nothing
   *     changed
   * @throws IllegalArgumentException if {@code lease} is not positive
   * @throws StoreUnavailableException if the store cannot be reached
   */
  void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease);

  /**
   * Renews many leases in one call: for every entry, what {@link #heartbeat} does for that record
   * and fence, with the same {@code now} and {@code lease}. The engine calls it once per heartbeat
   * interval with every operation it runs, so that renewing costs the same few round trips whether
   * one operation or a thousand are in flight; a store overrides the default (one {@link
   * #heartbeat} per entry) with one statement, script or batch request. Atomic and linearizable per
   * record, as {@link #heartbeat} is; not across records.
   *
   * @param leases the records to renew, each with its owner's token; may be empty
   * @param now the engine's time
   * @param lease the new lease length, positive
   * @return the records whose fence was refused (stale, or the record is not in flight): their
   *     owners lost them and nothing changed for them. Every other record's lease now ends at
   *     {@code now + lease}, or later if it already ended later: a store may keep the later end, so
   *     that a renewal that waited (behind a starved connection pool, say) cannot shorten a lease
   *     that the owner's own fenced write (a phase) extended meanwhile.
   * @throws IllegalArgumentException if {@code lease} is not positive
   * @throws StoreUnavailableException if the store cannot be reached: which leases were renewed is
   *     unknown
   */
  default Set<RecordId> heartbeatAll(
      Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    Objects.requireNonNull(leases, "leases");
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(lease, "lease");
    leases.forEach(
        (id, fence) -> {
          Objects.requireNonNull(id, "leases: a record id");
          Objects.requireNonNull(fence, "leases: the fence of " + id);
        });
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be > 0, but was " + lease);
    }
    Set<RecordId> refused = new HashSet<>();
    leases.forEach(
        (id, fence) -> {
          try {
            heartbeat(id, fence, now, lease);
          } catch (LeaseLostException e) {
            refused.add(id);
          }
        });
    return refused;
  }

  /**
   * Records that the owner reached {@code point}, replacing the previous recovery point, and sets
   * the lease to end at {@code now + lease}; under the same fence condition as {@link #heartbeat}.
   *
   * @param id the record
   * @param fence the owner's token
   * @param point the recovery point reached
   * @param now the engine's time
   * @param lease the new lease length, positive
   * @throws LeaseLostException if {@code fence} is stale or the record is not in flight; nothing
   *     changed
   * @throws IllegalArgumentException if {@code lease} is not positive
   * @throws StoreUnavailableException if the store cannot be reached
   */
  void checkpoint(RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease);

  /**
   * Stores the result and moves the record to {@code COMPLETE} at {@code now}, under the same fence
   * condition as {@link #heartbeat}. From then on, within the replay window, every claim with the
   * same fingerprint returns this response, unchanged, and no write can change it.
   *
   * @param id the record
   * @param fence the owner's token
   * @param response the result to replay
   * @param now the engine's time, the completion time unless the store judges time by its server's
   *     clock
   * @throws LeaseLostException if {@code fence} is stale or the record is not in flight (for
   *     example already complete); nothing changed
   * @throws KeyStoreException if {@code response} is larger than {@link #maxResponseBytes()}, or
   *     the store refused it for another reason that repeating the call cannot change; nothing
   *     changed
   * @throws StoreUnavailableException if the store cannot be reached
   */
  void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now);

  /**
   * Gives the record up: it becomes {@code ABSENT}, so the next claim runs the request anew. The
   * engine releases a record when the operation failed before committing anything. Under the same
   * fence condition as {@link #heartbeat}. The fence counter of the record must survive the
   * release: the next claim's token is still greater.
   *
   * @param id the record
   * @param fence the owner's token
   * @param now the engine's time
   * @throws LeaseLostException if {@code fence} is stale or the record is not in flight; nothing
   *     changed
   * @throws StoreUnavailableException if the store cannot be reached
   */
  void release(RecordId id, FenceToken fence, Instant now);

  /**
   * Reads a record without changing it: for the status endpoint of long-running requests, for
   * waiting on an in-flight record, and for tests.
   *
   * @param id the record
   * @return the record, or empty when there is none (never claimed, released, or purged)
   * @throws StoreUnavailableException if the store cannot be reached
   */
  Optional<RecordSnapshot> lookup(RecordId id);

  /**
   * Finds in-flight records whose lease expired ({@code leaseExpiresAt <= now}, by the store's own
   * clock when it has {@link StoreCapability#SERVER_CLOCK}), oldest lease first, for the completer
   * to take over and drive to completion. Reads only; a record found here may be taken over or
   * completed by someone else before the caller acts, which the caller's own fenced claim detects.
   *
   * @param now the engine's time
   * @param limit the most records to return, positive
   * @return up to {@code limit} abandoned records
   * @throws IllegalArgumentException if {@code limit} is not positive
   * @throws StoreUnavailableException if the store cannot be reached
   */
  List<RecordSnapshot> findAbandoned(Instant now, int limit);

  /**
   * Deletes one bounded batch of records past retention: completed records with {@code completedAt
   * + retention <= now}, and in-flight records whose lease expired at or before {@code now -
   * retention}. A live record, or one still within retention, is never deleted. The batch is
   * bounded so that the delete holds locks only briefly: it deletes exactly {@code limit} records
   * while at least that many are eligible, fewer only when it drained them or skipped records a
   * concurrent transaction holds locked (those wait for the next run), so the reaper calls it again
   * while it returns {@code limit}. Rows a store keeps for its own bookkeeping and never exposes
   * (released records that keep their fence, say) may be deleted too, but are not counted. A store
   * with {@link StoreCapability#SERVER_CLOCK} judges retention by its own clock.
   *
   * @param now the engine's time
   * @param retention how long records are kept after they complete or are abandoned, positive
   * @param limit the most records to delete in this batch, positive
   * @return how many records were deleted, at most {@code limit}
   * @throws IllegalArgumentException if {@code retention} or {@code limit} is not positive
   * @throws StoreUnavailableException if the store cannot be reached
   */
  int deleteExpired(Instant now, Duration retention, int limit);

  /**
   * Keeps a record at least until {@code keepUntil}: {@link #deleteExpired} does not delete it at
   * any {@code now < keepUntil}, whatever the retention it is given, and from {@code keepUntil} on
   * deletes it by the usual rule (retention counted from the completion or the lease's end). For a
   * person who needs a record past retention (an investigation, a redrive that waits for a fix;
   * {@code KeyStoreAdmin} in the core module). A store with {@link StoreCapability#SERVER_CLOCK}
   * compares {@code keepUntil} with its own clock.
   *
   * <p>Applies only while {@code fence} is the record's current token and the record is {@code
   * IN_FLIGHT} or {@code COMPLETE} (also past its window, until it is deleted); otherwise it
   * changes nothing and throws {@link LeaseLostException}. Unlike the owner's writes it is allowed
   * on a complete record and under a live lease, because it changes nothing the owner or a claim
   * reads: the state, fence, lease, recovery point, response, completion time and so the replay
   * window stay as they are. It never shortens what an earlier call set (the later instant wins),
   * and the record's later writes (heartbeats, checkpoints, the completion, a takeover) keep it; a
   * release, or a new request's claim past the window, may drop it.
   *
   * <p>The default throws {@link UnsupportedOperationException}: a store that implements it
   * declares {@link StoreCapability#EXTEND_RETENTION}.
   *
   * @param id the record
   * @param fence the record's current token, as {@link #lookup} showed it
   * @param keepUntil the instant before which the record is not deleted
   * @param now the engine's time
   * @throws LeaseLostException if {@code fence} is not the record's current token, or there is no
   *     such record (never claimed, released, deleted); nothing changed and nothing was created
   * @throws UnsupportedOperationException if the store does not declare {@link
   *     StoreCapability#EXTEND_RETENTION}
   * @throws StoreUnavailableException if the store cannot be reached
   */
  default void extendRetention(RecordId id, FenceToken fence, Instant keepUntil, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(keepUntil, "keepUntil");
    Objects.requireNonNull(now, "now");
    throw new UnsupportedOperationException(
        getClass().getName()
            + " cannot extend a record's retention: it does not declare"
            + " StoreCapability.EXTEND_RETENTION");
  }

  /**
   * Lists records by state and lease, one bounded page at a time, for a person or a tool that looks
   * for stuck keys ({@code KeyStoreAdmin} in the core module). Reads only.
   *
   * <p>A page holds at most {@code query.limit()} records that match {@code query.selection()} at
   * {@code query.now()} (by the store's own clock with {@link StoreCapability#SERVER_CLOCK}) and,
   * when {@code query.scope()} is present, belong to that scope; each is a full snapshot, equal to
   * what {@link #lookup} returned at some instant during the call. Following {@link
   * RecordPage#next()} from the first page until it is empty returns every record that matched
   * throughout, once: no page repeats a record of an earlier page, and none is skipped. A record
   * that changed state, or was claimed or deleted, while the pages were read may appear or not. The
   * order is the store's own (record order for the in-memory and JDBC stores); nothing is promised
   * across records, as for {@link #findAbandoned}. A store reads about one page's worth of records
   * per call (plus what its index cannot filter), never the whole store at once.
   *
   * <p>The default throws {@link UnsupportedOperationException}: a store that implements it
   * declares {@link StoreCapability#LISTING}.
   *
   * @param query which records, from where, how many
   * @return one page, and where the next starts
   * @throws IllegalArgumentException if {@code query.after()} is a cursor this store did not make
   * @throws UnsupportedOperationException if the store does not declare {@link
   *     StoreCapability#LISTING}
   * @throws StoreUnavailableException if the store cannot be reached
   */
  default RecordPage list(RecordQuery query) {
    Objects.requireNonNull(query, "query");
    throw new UnsupportedOperationException(
        getClass().getName() + " cannot list records: it does not declare StoreCapability.LISTING");
  }

  /**
   * The largest response this store can keep, as {@link StoredResponse#size()} counts it: what a
   * single record holds at most (DynamoDB's item size, a MySQL server's {@code max_allowed_packet},
   * a column type's limit), less the record's other attributes at their largest.
   *
   * <p>{@link #complete} of a larger response changes nothing and throws {@link KeyStoreException}
   * (not {@link StoreUnavailableException}: repeating it cannot succeed), with a message that names
   * the limit; a store checks before it sends the write where it can. The engine reads the limit
   * when it is built and stores a small not-stored marker in place of a larger response, so that an
   * operation that ran is never run again because its result did not fit; every binding checks its
   * own stored-response limit against it when it is built.
   *
   * <p>Stable for the store's lifetime (a store that reads it from its server does so once, when it
   * is built). The default, {@link Long#MAX_VALUE}, says the store sets no limit of its own.
   *
   * @return the limit in bytes, positive
   */
  default long maxResponseBytes() {
    return Long.MAX_VALUE;
  }

  /**
   * The optional capabilities this store has. The default is none.
   *
   * @return an unmodifiable set, stable for the store's lifetime
   */
  default Set<StoreCapability> capabilities() {
    return Set.of();
  }
}
