package dev.idempotency;

/**
 * A fencing token: the number a store hands out with every successful claim of a key.
 *
 * <p>For one {@code (scope, key)}, every claim (a fresh claim, a claim after a release, a takeover
 * of an expired lease, a claim after the replay window or after the record was purged) returns a
 * token strictly greater than every token returned before for that key. Every later write of the
 * owner (heartbeat, checkpoint, complete, release) carries its token, and the store applies it only
 * while the token is still the record's current one; an owner that was paused past its lease and
 * was taken over therefore cannot write any more. The token can also be passed to downstream
 * systems so that they reject a stale owner's calls themselves.
 *
 * <p>Tokens are positive. Only their order means something. Immutable and thread-safe.
 *
 * @param value the token, greater than zero
 */
public record FenceToken(long value) implements Comparable<FenceToken> {

  /**
   * @throws IllegalArgumentException if {@code value} is not positive
   */
  public FenceToken {
    if (value <= 0) {
      throw new IllegalArgumentException("fence token must be > 0, but was " + value);
    }
  }

  /** Returns the token with the given value; see {@link #FenceToken(long)}. */
  public static FenceToken of(long value) {
    return new FenceToken(value);
  }

  /** Whether this token was issued after {@code other} for the same key. */
  public boolean isNewerThan(FenceToken other) {
    return value > other.value;
  }

  @Override
  public int compareTo(FenceToken other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return "fence#" + value;
  }
}
