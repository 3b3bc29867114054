package dev.idempotency.store.jdbc.internal;

/**
 * The seconds a statement that carries a response is given beyond the store's query timeout, one
 * for each MiB begun. The timeout bounds waiting (on a lock, on a database that stopped answering),
 * and a driver counts the sending of the statement in it: without the allowance a response near
 * MySQL's limit (8 MiB at the default {@code max_allowed_packet}) exceeded the default 5 s on a
 * busy two-core machine, and a completion that would have succeeded was refused as an outage. The
 * allowance stops at three times the query timeout, so that a statement stays bounded by a small
 * multiple of the setting its owner chose.
 */
final class TransferAllowance {
  private static final long MIB = 1L << 20;

  private TransferAllowance() {}

  /** The allowance for a statement that sends {@code p}'s response (0 without one). */
  static int seconds(ParamValues p, int queryTimeoutSeconds) {
    long mib = (p.responseBytes() + MIB - 1) / MIB;
    return (int) Math.min(mib, 3L * queryTimeoutSeconds);
  }

  /**
   * The query timeout of a statement that sends {@code p}: the store's and the allowance, at most
   * {@code Integer.MAX_VALUE} (a timeout near it, set as "none", must not overflow).
   */
  static int timeout(ParamValues p, int queryTimeoutSeconds) {
    return (int)
        Math.min(Integer.MAX_VALUE, (long) queryTimeoutSeconds + seconds(p, queryTimeoutSeconds));
  }
}
