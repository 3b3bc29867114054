package dev.idempotency;

import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named point between two atomic phases of a multi-step request, with a small payload.
 *
 * <p>A request that calls a system it cannot roll back (a card network, a mail server) is split at
 * each such call into phases. Each phase commits its own writes together with the recovery point it
 * reached, and, before calling out, records the downstream idempotency key it will use in the
 * point's {@link #data() data}. A retry, or a takeover after the owner's lease expired, starts from
 * the last recovery point, so a finished phase never runs twice and a call whose response was lost
 * is retried with the same downstream key.
 *
 * <p>The name is 1 to 64 characters of {@code [A-Za-z0-9._:-]}; the data is at most {@value
 * #MAX_DATA_BYTES} bytes. Immutable and thread-safe; equality is by name and data.
 */
public final class RecoveryPoint {
  /** The largest payload, in bytes. Recovery points hold ids and keys, not documents. */
  public static final int MAX_DATA_BYTES = 4096;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
  private static final byte[] NO_DATA = new byte[0];

  private final String name;
  private final byte[] data;

  private RecoveryPoint(String name, byte[] data) {
    this.name = name;
    this.data = data;
  }

  /**
   * A recovery point without data.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is not 1 to 64 characters of {@code
   *     [A-Za-z0-9._:-]}
   */
  public static RecoveryPoint of(String name) {
    return of(name, NO_DATA);
  }

  /**
   * A recovery point with data (copied).
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the name breaks its rule or the data is longer than {@value
   *     #MAX_DATA_BYTES} bytes
   */
  public static RecoveryPoint of(String name, byte[] data) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(data, "data");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "recovery point name must be 1 to 64 characters of [A-Za-z0-9._:-], but was \""
              + IdempotencyKey.escapeForLog(name, 64)
              + "\"");
    }
    if (data.length > MAX_DATA_BYTES) {
      throw new IllegalArgumentException(
          "recovery point data must be at most "
              + MAX_DATA_BYTES
              + " bytes, but was "
              + data.length);
    }
    return new RecoveryPoint(name, data.length == 0 ? NO_DATA : data.clone());
  }

  /** The point's name, for example {@code "charge-requested"}. */
  public String name() {
    return name;
  }

  /** A copy of the point's data; empty when it has none. */
  public byte[] data() {
    return data.length == 0 ? NO_DATA : data.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecoveryPoint other
        && name.equals(other.name)
        && Arrays.equals(data, other.data);
  }

  @Override
  public int hashCode() {
    return 31 * name.hashCode() + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "RecoveryPoint[" + name + (data.length == 0 ? "" : ", " + data.length + " bytes") + "]";
  }
}
