package dev.idempotency.core;

import dev.idempotency.KeyState;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.core.internal.Events;
import dev.idempotency.event.IdempotencyEvent;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a person does with the records of a store: find the stuck ones, look at one, and settle it.
 * Every action goes through the store's SPI and is fenced like any other write, so it can never
 * overwrite a record whose owner holds a live lease.
 *
 * <pre>{@code
 * KeyStoreAdmin admin = KeyStoreAdmin.builder(engine).resumer(resumer).build();
 * RecordPage page = admin.list(admin.query(RecordSelection.ABANDONED, 50));
 * admin.release(RecordId.of("tenant-1", "key-1"), "refunded by hand, ticket 4711");
 * }</pre>
 *
 * <ul>
 *   <li>{@link #list} pages through records by state and lease ({@link RecordSelection}), in one
 *       scope or all; the store must declare {@link StoreCapability#LISTING}.
 *   <li>{@link #show} returns a record without its stored body; {@link #showWithBody} with it.
 *   <li>{@link #release} gives up an abandoned record, so that the next retry runs the request
 *       anew. It takes the record over with a fenced claim (the store draws a new fence; a live
 *       lease refuses it) and releases it with that fence: no write of its own, and an owner still
 *       working on the record keeps it. The reason is logged and sent to the engine's listener as
 *       {@link IdempotencyEvent.Released}.
 *   <li>{@link #redrive} resumes an abandoned record now, through the {@link Completer} and the
 *       application's {@link Completer.Resumer}.
 *   <li>{@link #extend} keeps a record past its retention (an investigation, a redrive that waits
 *       for a fix), under the fence the admin just looked at; the reaper deletes it from then on
 *       only. Nothing a claim reads changes: not the state, the lease, the response nor the replay
 *       window. The reason is logged. The store must declare {@link
 *       StoreCapability#EXTEND_RETENTION}.
 * </ul>
 *
 * <p>Whoever is allowed to call these methods can make a request run again (release) or run now
 * (redrive): expose them to operators only. Thread-safe.
 */
public final class KeyStoreAdmin {
  private static final System.Logger LOG = System.getLogger(KeyStoreAdmin.class.getName());

  /** The longest reason an action takes, in characters. */
  public static final int MAX_REASON_LENGTH = 200;

  /** What an action did, or why it did nothing. */
  public enum Status {
    /** The record was released: the next claim runs the request anew. */
    RELEASED,
    /** The record was resumed and its result stored. */
    REDRIVEN,
    /** There is no such record (never claimed, released or purged). */
    NOT_FOUND,
    /** The record is complete: there is nothing to settle. */
    COMPLETE,
    /** The record's owner holds a live lease: it is at work, not stuck. Nothing changed. */
    LEASE_LIVE,
    /**
     * The record changed between the look and the action (another request, a newer claim, a
     * takeover): nothing of the newer record changed. Look again.
     */
    CHANGED,
    /**
     * The resumer has no operation for the record, or another owner took it over first: nothing ran
     * here.
     */
    NOT_RESUMED,
    /** The resumed operation failed again; the record stays in flight (see the log). */
    FAILED,
    /** The record is kept until the instant asked for at least; nothing else of it changed. */
    EXTENDED
  }

  /**
   * The answer to one action.
   *
   * @param id the record
   * @param status what happened
   * @param detail one sentence for a person, naming what was found
   */
  public record Result(RecordId id, Status status, String detail) {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Result {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(detail, "detail");
    }

    /** Whether the action changed the record as asked. */
    public boolean done() {
      return status == Status.RELEASED || status == Status.REDRIVEN || status == Status.EXTENDED;
    }
  }

  private final IdempotencyEngine engine;
  private final KeyStore store;
  private final @Nullable Completer completer;

  private KeyStoreAdmin(Builder b) {
    this.engine = b.engine;
    this.store = b.engine.store();
    this.completer = b.resumer == null ? null : new Completer(b.engine, b.resumer);
  }

  /** Starts an admin over the engine's store, clock, lease, replay window and listener. */
  public static Builder builder(IdempotencyEngine engine) {
    return new Builder(Objects.requireNonNull(engine, "engine"));
  }

  /**
   * The first page of {@code selection} in every scope, judged at the engine's time; narrow it with
   * {@link RecordQuery#inScope} and page on with {@link RecordQuery#after}.
   *
   * @throws IllegalArgumentException if {@code limit} is not 1 to {@value RecordQuery#MAX_LIMIT}
   */
  public RecordQuery query(RecordSelection selection, int limit) {
    return RecordQuery.of(selection, now(), limit);
  }

  /**
   * One page of records. Map them with {@link RecordView#of} before showing them to a person.
   *
   * @throws UnsupportedOperationException naming the store, if it does not declare {@link
   *     StoreCapability#LISTING}
   */
  public RecordPage list(RecordQuery query) {
    Objects.requireNonNull(query, "query");
    if (!store.capabilities().contains(StoreCapability.LISTING)) {
      throw new UnsupportedOperationException(
          "the store "
              + store.getClass().getName()
              + " cannot list records (it does not declare StoreCapability.LISTING);"
              + " show, release and redrive work on it by record id");
    }
    return store.list(query);
  }

  /** The record, without its stored body; empty when there is none. */
  public Optional<RecordView> show(RecordId id) {
    return showWithBody(id).map(RecordView::of);
  }

  /** The record with its stored body: only when a person asked for the body. */
  public Optional<RecordSnapshot> showWithBody(RecordId id) {
    return store.lookup(Objects.requireNonNull(id, "id"));
  }

  /**
   * Releases an abandoned record, so that the next retry runs the request anew; refused while its
   * owner holds a live lease. Release only a record whose request committed nothing (or whose
   * effects were undone by hand): a retry then runs it again from the start.
   *
   * @param id the record
   * @param reason why, for the log and the event: 1 to 200 characters on one line
   * @throws IllegalArgumentException if {@code reason} is blank, too long or has a line break
   */
  public Result release(RecordId id, String reason) {
    Objects.requireNonNull(id, "id");
    String why = checkedReason(reason);
    Optional<RecordSnapshot> seen = store.lookup(id);
    if (seen.isEmpty()) {
      return new Result(id, Status.NOT_FOUND, "no record " + id);
    }
    RecordSnapshot record = seen.get();
    if (record.state() == KeyState.COMPLETE) {
      return new Result(id, Status.COMPLETE, id + " is complete; nothing to release");
    }
    Instant now = now();
    ClaimOutcome claim =
        store.claim(
            new ClaimRequest(
                id,
                record.fingerprint(),
                now,
                engine.config().lease(),
                engine.config().replayWindow()));
    if (claim instanceof ClaimOutcome.Claimed won) {
      return releaseTakenOver(id, record, won, now, why);
    }
    if (claim instanceof ClaimOutcome.InFlight) {
      // the record's own lease end: the claim's answer may be bounded by the lease the engine asks
      // for, shorter than the owner's
      String until =
          store
              .lookup(id)
              .flatMap(RecordSnapshot::leaseExpiresAt)
              .map(Instant::toString)
              .orElse("an instant the store did not show");
      return new Result(
          id, Status.LEASE_LIVE, id + " has a live lease until " + until + "; nothing changed");
    }
    if (claim instanceof ClaimOutcome.Completed) {
      return new Result(id, Status.COMPLETE, id + " completed meanwhile; nothing to release");
    }
    return new Result(id, Status.CHANGED, id + " now belongs to another request; nothing changed");
  }

  private Result releaseTakenOver(
      RecordId id, RecordSnapshot seen, ClaimOutcome.Claimed won, Instant now, String why) {
    if (!won.takeover()) {
      // the record went away between the look and the claim: give the fresh claim straight back
      giveBack(id, won, now);
      return new Result(id, Status.NOT_FOUND, "no record " + id + " (it went away meanwhile)");
    }
    if (won.generation().isNewerThan(seen.fence())) {
      // a newer request with the same fingerprint: not the record the person looked at
      giveBack(id, won, now);
      return new Result(
          id, Status.CHANGED, id + " was claimed afresh meanwhile; nothing of it changed");
    }
    try {
      store.release(id, won.fence(), now);
    } catch (LeaseLostException e) {
      return new Result(
          id, Status.CHANGED, id + " was taken over while being released; nothing changed");
    }
    String detail =
        "released "
            + id
            + " (abandoned since "
            + seen.leaseExpiresAt().orElseThrow()
            + ", recovery point "
            + seen.recoveryPoint().map(Object::toString).orElse("none")
            + "): "
            + why;
    LOG.log(System.Logger.Level.WARNING, "admin: " + detail);
    Events.publish(
        engine.config().listener(),
        new IdempotencyEvent.Released(id, now, won.fence(), "released by an operator: " + why));
    return new Result(id, Status.RELEASED, detail);
  }

  /** Hands back a claim the admin won of a record it did not mean to settle. */
  private void giveBack(RecordId id, ClaimOutcome.Claimed won, Instant now) {
    try {
      if (won.takeover()) {
        // back to abandoned, recovery point and all, for whoever settles it next
        store.heartbeat(id, won.fence(), now, Duration.ofMillis(1));
      } else {
        store.release(id, won.fence(), now);
      }
    } catch (LeaseLostException e) {
      // someone else took it meanwhile: theirs now, as it should be
    }
  }

  /**
   * Resumes an abandoned record now, from its recovery point, with the operation the resumer gives
   * for it.
   *
   * @throws IllegalStateException if the admin was built without a resumer
   */
  public Result redrive(RecordId id) {
    Objects.requireNonNull(id, "id");
    if (completer == null) {
      throw new IllegalStateException(
          "redrive needs the application's resumer: KeyStoreAdmin.builder(engine).resumer(...)");
    }
    Optional<RecordSnapshot> seen = store.lookup(id);
    if (seen.isEmpty()) {
      return new Result(id, Status.NOT_FOUND, "no record " + id);
    }
    if (seen.get().state() == KeyState.COMPLETE) {
      return new Result(id, Status.COMPLETE, id + " is complete; nothing to redrive");
    }
    Completer.Report report = completer.runFor(id);
    if (report.found() == 0) {
      return new Result(
          id, Status.LEASE_LIVE, id + " is not abandoned (its lease is live); nothing ran");
    }
    if (report.completed() == 1) {
      return new Result(id, Status.REDRIVEN, "resumed " + id + " and stored its result");
    }
    if (report.failed() == 1) {
      return new Result(
          id, Status.FAILED, "resuming " + id + " failed again; it stays in flight (see the log)");
    }
    return new Result(
        id,
        Status.NOT_RESUMED,
        "the resumer has no operation for "
            + id
            + ", or another owner took it first; nothing ran here");
  }

  /**
   * Keeps a record for {@code keepFor} from now at least: see {@link #extend(RecordId, Instant,
   * String)}.
   *
   * @throws IllegalArgumentException if {@code keepFor} is not positive, or the reason is not valid
   */
  public Result extend(RecordId id, Duration keepFor, String reason) {
    Objects.requireNonNull(keepFor, "keepFor");
    if (keepFor.isNegative() || keepFor.isZero()) {
      throw new IllegalArgumentException("keepFor must be > 0, but was " + keepFor);
    }
    return extend(id, now().plus(keepFor), reason);
  }

  /**
   * Keeps a record until {@code keepUntil} at least: the reaper does not delete it before then,
   * whatever the retention, and deletes it by the usual rule afterwards. An in-flight record (live
   * or abandoned) or a complete one; its state, fence, lease, recovery point, response and replay
   * window stay as they are, so a live owner works on undisturbed. An instant earlier than one
   * asked for before changes nothing.
   *
   * @param id the record
   * @param keepUntil the instant before which the record is not deleted; after now
   * @param reason why, for the log: 1 to 200 characters on one line
   * @return {@link Status#EXTENDED}, {@link Status#NOT_FOUND}, or {@link Status#CHANGED} when the
   *     record changed between the look and the extension (nothing of it changed: look again)
   * @throws IllegalArgumentException if {@code keepUntil} is not after now, or the reason is not
   *     valid
   * @throws UnsupportedOperationException naming the store, if it does not declare {@link
   *     StoreCapability#EXTEND_RETENTION}
   */
  public Result extend(RecordId id, Instant keepUntil, String reason) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(keepUntil, "keepUntil");
    String why = checkedReason(reason);
    if (!store.capabilities().contains(StoreCapability.EXTEND_RETENTION)) {
      throw new UnsupportedOperationException(
          "the store "
              + store.getClass().getName()
              + " cannot keep a record past its retention (it does not declare"
              + " StoreCapability.EXTEND_RETENTION)");
    }
    Instant now = now();
    if (!keepUntil.isAfter(now)) {
      throw new IllegalArgumentException("keepUntil must be after now (" + now + "): " + keepUntil);
    }
    Optional<RecordSnapshot> seen = store.lookup(id);
    if (seen.isEmpty()) {
      return new Result(id, Status.NOT_FOUND, "no record " + id);
    }
    RecordSnapshot record = seen.get();
    try {
      store.extendRetention(id, record.fence(), keepUntil, now);
    } catch (LeaseLostException e) {
      return store.lookup(id).isEmpty()
          ? new Result(id, Status.NOT_FOUND, "no record " + id + " (it went away meanwhile)")
          : new Result(
              id, Status.CHANGED, id + " changed meanwhile (a newer fence); nothing changed");
    }
    String detail =
        "kept "
            + id
            + " ("
            + record.state()
            + ", "
            + record.fence()
            + ") until "
            + keepUntil
            + " at least: "
            + why;
    LOG.log(System.Logger.Level.WARNING, "admin: " + detail);
    return new Result(id, Status.EXTENDED, detail);
  }

  private Instant now() {
    return engine.config().clock().instant();
  }

  private static String checkedReason(String reason) {
    Objects.requireNonNull(reason, "reason");
    if (reason.isBlank() || reason.length() > MAX_REASON_LENGTH) {
      throw new IllegalArgumentException(
          "reason must be 1 to " + MAX_REASON_LENGTH + " characters, not blank");
    }
    if (reason.indexOf('\n') >= 0 || reason.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("reason must be one line");
    }
    return reason.strip();
  }

  /** Builds a {@link KeyStoreAdmin}. Not thread-safe. */
  public static final class Builder {
    private final IdempotencyEngine engine;
    private Completer.@Nullable Resumer resumer;

    private Builder(IdempotencyEngine engine) {
      this.engine = engine;
    }

    /** What {@link #redrive} resumes a record with; without it, redrive is refused. */
    public Builder resumer(Completer.Resumer resumer) {
      this.resumer = Objects.requireNonNull(resumer, "resumer");
      return this;
    }

    /** The admin. */
    public KeyStoreAdmin build() {
      return new KeyStoreAdmin(this);
    }
  }
}
