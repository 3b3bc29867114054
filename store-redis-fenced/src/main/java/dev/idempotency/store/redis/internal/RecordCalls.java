package dev.idempotency.store.redis.internal;

import static dev.idempotency.store.redis.internal.RedisCalls.ascii;
import static dev.idempotency.store.redis.internal.RedisCalls.number;

import dev.idempotency.FenceToken;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The store's calls on one record: the claim and its withdrawal, the checkpoint, the completion,
 * the release and the lookup, each one script over the record's own keys (its record, its fence
 * counter, its shard's indexes). Each method passes the {@code KEYS} and {@code ARGV} its script's
 * header lists, in that order, and decodes the reply; the calls that span index shards are {@link
 * IndexShardCalls}'. It checks no argument and waits for no replica: the store does both. Here too
 * is how long each key is kept, which the renewals need as well. Thread-safe and immutable.
 */
public final class RecordCalls {
  /**
   * How long a release's receipt stays beyond the command timeout: a client re-sends a command only
   * while its caller still waits for it (at most the command timeout), so a minute more covers the
   * re-sent command's way to the server.
   */
  private static final long RECEIPT_MARGIN_MILLIS = 60_000;

  /** The {@code now} argument of {@link Script#RECORDS}, which reads no time. */
  private static final byte[] UNUSED_NOW = new byte[0];

  private final RedisCalls calls;
  private final KeyLayout layout;
  private final long retentionMillis;
  private final long receiptMillis;

  /**
   * @param calls the store's commands
   * @param layout the store's key layout
   * @param retention how long a record is kept once its lease ended or it completed
   * @param commandTimeout how long one call may wait for Redis
   */
  public RecordCalls(
      RedisCalls calls, KeyLayout layout, Duration retention, Duration commandTimeout) {
    this.calls = calls;
    this.layout = layout;
    this.retentionMillis = retention.toMillis();
    this.receiptMillis = commandTimeout.toMillis() + RECEIPT_MARGIN_MILLIS;
  }

  /**
   * Runs the claim's script and decodes its outcome.
   *
   * @param at the script's {@code now} argument
   * @param leaseMicros the request's lease
   */
  public ClaimOutcome claim(ClaimRequest request, byte[] at, long leaseMicros) {
    String member = KeyLayout.member(request.id());
    int shard = layout.shardOf(member);
    List<Object> reply =
        calls.script(
            "claim of " + request.id(),
            Script.CLAIM,
            keys(
                layout.record(member),
                layout.counter(member),
                layout.leaseIndex(shard),
                layout.completionIndex(shard)),
            at,
            ascii(member),
            request.fingerprint().bytes(),
            number(leaseMicros),
            number(Micros.of(request.replayWindow())),
            number(inFlightExpiryMillis(leaseMicros)),
            number(counterExpiryMillis(leaseMicros)),
            CallNonce.next());
    return Replies.claimOutcome(reply);
  }

  /**
   * Undoes the claim of {@code id} under {@code fence}, the fence it just drew: a fresh claim's
   * record is deleted, a takeover's lease ended; nothing if the record is no longer under that
   * fence.
   *
   * @param at the claim's {@code now} argument
   * @param leaseMicros the claim's lease
   */
  public void withdraw(RecordId id, FenceToken fence, byte[] at, long leaseMicros) {
    String member = KeyLayout.member(id);
    calls.script(
        "withdrawal of the claim of " + id,
        Script.WITHDRAW,
        keys(
            layout.record(member),
            layout.counter(member),
            layout.leaseIndex(layout.shardOf(member))),
        at,
        ascii(member),
        number(fence.value()),
        number(counterExpiryMillis(leaseMicros)));
  }

  /**
   * Stores {@code point} and renews the lease, under {@code fence}.
   *
   * @param at the script's {@code now} argument
   * @throws LeaseLostException if the record is not in flight under {@code fence}
   */
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, byte[] at, long leaseMicros) {
    String member = KeyLayout.member(id);
    fenced(
        "checkpoint",
        id,
        fence,
        Script.CHECKPOINT,
        keys(
            layout.record(member),
            layout.leaseIndex(layout.shardOf(member)),
            layout.counter(member)),
        at,
        ascii(member),
        number(fence.value()),
        number(leaseMicros),
        number(inFlightExpiryMillis(leaseMicros)),
        ascii(point.name()),
        point.data(),
        number(counterExpiryMillis(leaseMicros)));
  }

  /**
   * Completes the record with {@code response}, under {@code fence}; kept for the retention.
   *
   * @param at the script's {@code now} argument
   * @throws LeaseLostException if the record is not in flight under {@code fence}
   */
  public void complete(RecordId id, FenceToken fence, StoredResponse response, byte[] at) {
    String member = KeyLayout.member(id);
    int shard = layout.shardOf(member);
    fenced(
        "complete",
        id,
        fence,
        Script.COMPLETE,
        keys(
            layout.record(member),
            layout.leaseIndex(shard),
            layout.completionIndex(shard),
            layout.counter(member)),
        at,
        ascii(member),
        number(fence.value()),
        number(response.status()),
        HeaderLines.encode(response.headers()),
        response.body(),
        number(retentionMillis),
        CallNonce.next(),
        number(retentionMillis + retentionMillis));
  }

  /**
   * Deletes the record, under {@code fence}, leaving a receipt that answers a re-sent release.
   *
   * @param at the script's {@code now} argument
   * @throws LeaseLostException if the record is not in flight under {@code fence}
   */
  public void release(RecordId id, FenceToken fence, byte[] at) {
    String member = KeyLayout.member(id);
    fenced(
        "release",
        id,
        fence,
        Script.RELEASE,
        keys(
            layout.record(member),
            layout.counter(member),
            layout.leaseIndex(layout.shardOf(member)),
            layout.releaseReceipt(member)),
        at,
        ascii(member),
        number(fence.value()),
        number(counterExpiryMillis(0)),
        CallNonce.next(),
        number(receiptMillis));
  }

  /**
   * Keeps the record until {@code keepUntilMicros} at least (the field {@code k}, which the reaper
   * reads), under {@code fence}, on an in-flight or complete record; its key and its fence
   * counter's expire no earlier.
   *
   * @param at the script's {@code now} argument
   * @throws LeaseLostException if there is no record or {@code fence} is not its current one
   */
  public void extendRetention(RecordId id, FenceToken fence, byte[] at, long keepUntilMicros) {
    String member = KeyLayout.member(id);
    fenced(
        "extendRetention",
        id,
        fence,
        Script.EXTEND,
        keys(layout.record(member), layout.counter(member)),
        at,
        number(fence.value()),
        number(keepUntilMicros),
        number(retentionMillis));
  }

  /** The record of {@code id}, read by a script. */
  public Optional<RecordSnapshot> lookup(RecordId id) {
    List<Object> rows =
        calls.script(
            "lookup of " + id,
            Script.RECORDS,
            keys(layout.record(KeyLayout.member(id))),
            UNUSED_NOW);
    return Replies.snapshot(id, rows.get(0));
  }

  /** How long an in-flight record is kept at most: its lease, then the retention. */
  public long inFlightExpiryMillis(long leaseMicros) {
    return Micros.ceilMillis(leaseMicros) + retentionMillis;
  }

  /** How long a fence counter is kept: a whole retention longer than its record. */
  public long counterExpiryMillis(long leaseMicros) {
    return inFlightExpiryMillis(leaseMicros) + retentionMillis;
  }

  private void fenced(
      String op, RecordId id, FenceToken fence, Script script, byte[][] keys, byte[]... args) {
    List<Object> reply = calls.script(op + " of " + id, script, keys, args);
    if (!reply.isEmpty() && reply.get(0) instanceof byte[]) {
      throw new LeaseLostException(id, fence, RedisCalls.text(reply, 0));
    }
  }

  private static byte[][] keys(byte[]... keys) {
    return keys;
  }
}
