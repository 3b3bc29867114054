package dev.idempotency.store.dynamodb.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The claim: one conditional {@code UpdateItem}, and what to make of every answer it can get. A
 * refusal says why through the item DynamoDB returns with it, or one consistent read where the
 * server does not return it (dynalite). A claim whose answer was lost reads the item once to find
 * out whether its write took effect. A claim that met a transaction on the item (the owner
 * committing a phase or its completion) reads the item to answer what a refusal would. Thread-safe.
 */
public final class ItemClaims {
  /** How often a claim goes again when the item changed between its write and its read. */
  public static final int ATTEMPTS = 16;

  /**
   * The longest pause before a claim goes again, in milliseconds. Claims that race on a key other
   * instances claim and release (a refusal without the item, then a read that finds it released)
   * would otherwise meet in step again; a random pause of up to 2^attempt ms, capped here, spreads
   * them, so one of them finds the key quiet. Only a refusal that does not carry the item
   * (dynalite, a proxy that drops it) can lead here: DynamoDB returns the item that failed the
   * condition.
   */
  static final int MAX_PAUSE_MILLIS = 64;

  private final DynamoDbClient client;
  private final RecordRequests requests;
  private final FencedWrites writes;

  public ItemClaims(DynamoDbClient client, RecordRequests requests, FencedWrites writes) {
    this.client = client;
    this.requests = requests;
    this.writes = writes;
  }

  /**
   * Claims the record of {@code request}.
   *
   * @throws KeyStoreException if the request's replay window is longer than the store's retention,
   *     or DynamoDB refused the claim for good (a missing table, refused credentials)
   * @throws StoreUnavailableException if DynamoDB could not be reached, a transaction held the item
   *     and the item did not say what to answer, or the item changed under each of {@link
   *     #ATTEMPTS} claims
   */
  public ClaimOutcome claim(ClaimRequest request) {
    RecordId id = request.id();
    Duration window = request.replayWindow();
    if (window.compareTo(requests.retention()) > 0) {
      // time to live would delete a completed record while its window still runs, and the retry
      // that came for its response would run the operation again
      throw new KeyStoreException(
          "claim of "
              + id
              + ": the replay window ("
              + window
              + ") is longer than the DynamoDB store's retention ("
              + requests.retention()
              + "), after which time to live deletes the record. Set the builder's retention to at"
              + " least the engine's replayWindow (best: to the engine's retention)");
    }
    byte[] fp = request.fingerprint().bytes();
    long now = ItemLayout.epochNanos(request.now());
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      long nonce = RecordRequests.newNonce();
      Map<String, AttributeValue> found;
      try {
        return RecordItem.of(
                client
                    .updateItem(
                        requests.claim(id, fp, request.now(), request.lease(), window, nonce))
                    .attributes())
            .claimed();
      } catch (ConditionalCheckFailedException e) {
        found = e.hasItem() ? e.item() : writes.read(id, "claim");
      } catch (SdkException e) {
        return notApplied(request, nonce, e);
      }
      if (found.isEmpty()) {
        continue; // purged since the refusal: claim again
      }
      Optional<ClaimOutcome> decided = decide(found, nonce, fp, now, window);
      if (decided.isPresent()) {
        return decided.get();
      }
      pauseBeforeAttempt(attempt + 1, id);
    }
    throw new StoreUnavailableException(
        "claim of "
            + id
            + " on DynamoDB table "
            + requests.table()
            + ": the item changed between each of "
            + ATTEMPTS
            + " conditional writes and the read after it; none of them claimed it");
  }

  /** A random pause of up to 2^(attempt - 1) ms, at most {@link #MAX_PAUSE_MILLIS}. */
  private static void pauseBeforeAttempt(int attempt, RecordId id) {
    if (attempt > ATTEMPTS) {
      return;
    }
    int bound = Math.min(MAX_PAUSE_MILLIS, 1 << Math.min(attempt - 1, 16));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextInt(bound + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("claim of " + id + " interrupted between attempts", e);
    }
  }

  /**
   * What the claim with {@code nonce} makes of {@code found}, the item its write did not change:
   * its own earlier write (an SDK retry of a claim whose first answer was lost), or the refusal the
   * item stands for; empty when the item in fact lets a claim win.
   */
  private static Optional<ClaimOutcome> decide(
      Map<String, AttributeValue> found, long nonce, byte[] fp, long now, Duration window) {
    RecordItem item = RecordItem.of(found);
    if (item.nonce() == nonce && item.state().equals(ItemLayout.IN_FLIGHT)) {
      return Optional.of(item.claimed());
    }
    return item.refusedClaim(fp, now, window);
  }

  /** The claim's write failed with {@code e}: answers what can be known, or throws. */
  private ClaimOutcome notApplied(ClaimRequest request, long nonce, SdkException e) {
    RecordId id = request.id();
    String what = "claim of " + id;
    if (StoreErrors.isWriteConflict(e)) {
      // a transaction holds the item: the owner commits a phase or its completion. The write was
      // not applied; the item says what the claim would have been refused for.
      Map<String, AttributeValue> found = writes.read(id, "claim");
      Optional<ClaimOutcome> decided =
          found.isEmpty()
              ? Optional.empty()
              : decide(
                  found,
                  nonce,
                  request.fingerprint().bytes(),
                  ItemLayout.epochNanos(request.now()),
                  request.replayWindow());
      if (decided.isPresent()) {
        return decided.get();
      }
      throw new StoreUnavailableException(
          what
              + " on DynamoDB table "
              + requests.table()
              + " met a transaction on the item, and the item read after it would let the claim"
              + " win; nothing was written, try again",
          e);
    }
    KeyStoreException mapped = StoreErrors.map(what, requests.table(), e);
    if (!(mapped instanceof StoreUnavailableException)) {
      throw mapped; // refused for good: DynamoDB applied nothing
    }
    // No answer: DynamoDB may have applied the write and the answer been lost. One read, bounded
    // by one attempt's time, finds this claim's nonce if it won.
    Map<String, AttributeValue> found;
    try {
      found = writes.read(id, "claim", requests.bounds(requests.attemptTimeout()));
    } catch (KeyStoreException readFailed) {
      StoreUnavailableException unknown =
          new StoreUnavailableException(
              mapped.getMessage()
                  + "; whether the claim took effect is unknown (the read after it failed too): if"
                  + " it did, the record stays in flight until its lease ends",
              e);
      unknown.addSuppressed(readFailed);
      throw unknown;
    }
    if (!found.isEmpty()) {
      RecordItem item = RecordItem.of(found);
      if (item.nonce() == nonce && item.state().equals(ItemLayout.IN_FLIGHT)) {
        return item.claimed();
      }
    }
    throw new StoreUnavailableException(
        mapped.getMessage()
            + "; the read after it did not find this claim's write, so the operation must not"
            + " run (should a copy of the request still under way apply it, the record stays in"
            + " flight until its lease ends)",
        e);
  }
}
