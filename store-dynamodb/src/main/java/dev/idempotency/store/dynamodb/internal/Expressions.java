package dev.idempotency.store.dynamodb.internal;

/**
 * Every condition and update expression the store sends, verbatim; {@code docs/stores-dynamodb.md}
 * quotes them and a test checks that it still does. Placeholders: {@code :now} the engine's time,
 * {@code :cut} {@code now - replayWindow} (or {@code now - retention} for the reaper), {@code
 * :lease} {@code now + lease}, all epoch nanoseconds; {@code :f} the owner's fence and {@code :f1}
 * that fence plus one; {@code :I}, {@code :C}, {@code :R} the states.
 */
public final class Expressions {
  private Expressions() {}

  /**
   * The claim's condition: the item is absent, released, complete and past its replay window, or in
   * flight with the same fingerprint and an expired lease. Another fingerprint never claims a
   * record that does not count as absent. And the item's nonce is not this claim's: a copy of the
   * claim that DynamoDB applies late (the SDK gave up on that attempt and sent another) finds its
   * own nonce, even after the owner released the record, and does not claim it a second time.
   */
  public static final String CLAIM_CONDITION =
      "(attribute_not_exists(pk) OR st = :R OR (st = :C AND done <= :cut)"
          + " OR (st = :I AND fp = :fp AND lease <= :now))"
          + " AND (attribute_not_exists(nonce) OR nonce <> :nonce)";

  /**
   * The claim's update, the same for a fresh claim and a takeover: the fence grows by one from the
   * item's (from {@code :base}, the engine's time in microseconds, for an item that does not
   * exist); the generation is kept while in flight (a takeover continues the request), and a
   * released or completed item carries the next fence as its generation already; the response is
   * dropped; the recovery point stays and counts only while its generation is the item's.
   */
  public static final String CLAIM_UPDATE =
      "SET st = :I, fp = :fp, fence = if_not_exists(fence, :base) + :one,"
          + " gen = if_not_exists(gen, :base1), lease = :lease, retain = :lease, #ttl = if_not_exists(held, :ttl),"
          + " nonce = :nonce, #scope = :scope, ikey = :ikey"
          + " REMOVE done, cgen, #status, hdr, body, endn";

  /** Every later write of the owner: its fence is the item's, and the item is in flight. */
  public static final String OWNER_CONDITION = "fence = :f AND st = :I";

  /** A heartbeat: the lease ends at {@code now + lease}. */
  public static final String HEARTBEAT_UPDATE =
      "SET lease = :lease, retain = :lease, #ttl = if_not_exists(held, :ttl)";

  /** A checkpoint: the recovery point, tagged with the request's generation, and a new lease. */
  public static final String CHECKPOINT_UPDATE =
      "SET rp = :rp, rpd = :rpd, rpg = gen, lease = :lease, retain = :lease, #ttl = if_not_exists(held, :ttl)";

  /** A checkpoint to a point without data. */
  public static final String CHECKPOINT_UPDATE_NO_DATA =
      "SET rp = :rp, rpg = gen, lease = :lease, retain = :lease, #ttl = if_not_exists(held, :ttl) REMOVE rpd";

  /**
   * The completion: the response, the completion time, and as generation the next claim's fence
   * (the request's own generation moves to {@code cgen}, for its recovery point).
   */
  public static final String COMPLETE_UPDATE =
      "SET st = :C, done = :now, cgen = gen, gen = :f1, #status = :status, hdr = :hdr,"
          + " body = :body, endn = :en, retain = :now, #ttl = if_not_exists(held, :ttl) REMOVE lease";

  /** The completion of a response with an empty body. */
  public static final String COMPLETE_UPDATE_NO_BODY =
      "SET st = :C, done = :now, cgen = gen, gen = :f1, #status = :status, hdr = :hdr,"
          + " endn = :en, retain = :now, #ttl = if_not_exists(held, :ttl) REMOVE lease, body";

  /** The release: the item stays, as released, so its fence survives. */
  public static final String RELEASE_UPDATE =
      "SET st = :R, gen = :f1, endn = :en, retain = :now, #ttl = if_not_exists(held, :ttl) REMOVE lease";

  /**
   * The extension of a record's retention, allowed on the current fence of an in-flight or complete
   * item, and only to a later instant: a refusal with the fence current and the item not released
   * means it is kept as long already.
   */
  public static final String EXTEND_CONDITION =
      "fence = :f AND (st = :I OR st = :C) AND (attribute_not_exists(keep) OR keep < :keep)";

  /**
   * The extension: {@code keep} for the reaper, and {@code held}, a string, which every write from
   * then on copies into {@code ttl} instead of its number ({@code if_not_exists(held, :ttl)}), so
   * that time to live, which ignores an item whose {@code ttl} is not a number, leaves the item to
   * the reaper.
   */
  public static final String EXTEND_UPDATE = "SET keep = :keep, held = :held, #ttl = :held";

  /** {@code findAbandoned}'s filter. */
  public static final String ABANDONED_FILTER = "st = :I AND lease <= :now";

  /** {@code deleteExpired}'s filter: any state, retention ended, and not kept longer. */
  public static final String EXPIRED_FILTER =
      "retain <= :cut AND (attribute_not_exists(keep) OR keep <= :now)";

  /** The reaper's delete: the item is still the one the scan saw, and still past retention. */
  public static final String DELETE_CONDITION =
      "fence = :f AND st = :st AND retain <= :cut AND (attribute_not_exists(keep) OR keep <= :now)";
}
