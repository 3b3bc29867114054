package dev.idempotency;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A digest of the request a key was first used with (by default SHA-256 of method, path and body
 * bytes).
 *
 * <p>The same key with a different fingerprint is a client bug: the engine rejects it as a mismatch
 * and never replays the stored response for it. The digest algorithm is the caller's choice; this
 * type only carries 1 to {@value #MAX_BYTES} bytes and compares them by value.
 *
 * <p>Instances are immutable and thread-safe: the bytes are copied in and out.
 */
public final class Fingerprint {
  /** The longest digest accepted, in bytes (512 bits). */
  public static final int MAX_BYTES = 64;

  private static final HexFormat HEX = HexFormat.of();
  private final byte[] digest;

  private Fingerprint(byte[] digest) {
    this.digest = digest;
  }

  /**
   * Wraps a digest.
   *
   * @param digest the digest bytes (copied)
   * @return the fingerprint
   * @throws NullPointerException if {@code digest} is null
   * @throws IllegalArgumentException if {@code digest} is empty or longer than {@value #MAX_BYTES}
   *     bytes
   */
  public static Fingerprint of(byte[] digest) {
    Objects.requireNonNull(digest, "digest");
    if (digest.length == 0 || digest.length > MAX_BYTES) {
      throw new IllegalArgumentException(
          "fingerprint must be 1 to " + MAX_BYTES + " bytes, but was " + digest.length);
    }
    return new Fingerprint(digest.clone());
  }

  /**
   * Parses the lower- or upper-case hexadecimal form produced by {@link #hex()}.
   *
   * @throws NullPointerException if {@code hex} is null
   * @throws IllegalArgumentException if {@code hex} is not an even number of hex digits, or its
   *     length is out of range
   */
  public static Fingerprint fromHex(String hex) {
    Objects.requireNonNull(hex, "hex");
    return of(HEX.parseHex(hex));
  }

  /** A copy of the digest bytes. */
  public byte[] bytes() {
    return digest.clone();
  }

  /** The digest in lower-case hexadecimal. */
  public String hex() {
    return HEX.formatHex(digest);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fingerprint other && Arrays.equals(digest, other.digest);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(digest);
  }

  @Override
  public String toString() {
    return "Fingerprint[" + hex() + "]";
  }
}
