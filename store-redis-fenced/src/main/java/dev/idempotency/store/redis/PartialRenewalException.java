package dev.idempotency.store.redis;

import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.store.redis.internal.IndexShardCalls;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link RedisKeyStore#heartbeatAll} reached some index shards and not others (a Cluster node down
 * or frozen, a shard's script past the command timeout): the leases of the shards that answered
 * were renewed or refused as the store found them, and whether the others were renewed is unknown.
 * A {@link StoreUnavailableException}, as the SPI says a renewal that could not reach the store is;
 * a caller that reads it can confirm {@link #renewed()}, tell the owners of {@link #refused()} they
 * lost their records, and leave only {@link #unknown()} unconfirmed.
 */
public final class PartialRenewalException extends StoreUnavailableException {
  private static final long serialVersionUID = 1L;

  private final transient Set<RecordId> renewed;
  private final transient Set<RecordId> refused;
  private final transient Set<RecordId> unknown;

  PartialRenewalException(
      Set<RecordId> renewed, Set<RecordId> refused, Set<RecordId> unknown, Throwable cause) {
    super(
        "renewal of "
            + (renewed.size() + refused.size() + unknown.size())
            + " leases reached only some index shards: "
            + renewed.size()
            + " renewed, "
            + refused.size()
            + " refused, "
            + unknown.size()
            + " unknown ("
            + cause.getMessage()
            + ")",
        cause);
    this.renewed = Set.copyOf(renewed);
    this.refused = Set.copyOf(refused);
    this.unknown = Set.copyOf(unknown);
  }

  /**
   * What a renewal that met failures throws: the first failure that is not an outage (a shard that
   * refused its script: the store is broken, not unreachable), else this exception; the other
   * failures suppressed.
   */
  static RuntimeException of(Set<RecordId> leases, IndexShardCalls.Renewals renewals) {
    List<RuntimeException> failures = renewals.failures();
    RuntimeException primary =
        failures.stream()
            .filter(f -> !(f instanceof StoreUnavailableException))
            .findFirst()
            .orElse(failures.get(0));
    failures.stream().filter(f -> f != primary).forEach(primary::addSuppressed);
    if (!(primary instanceof StoreUnavailableException)) {
      return primary;
    }
    Set<RecordId> renewed = new HashSet<>(leases);
    renewed.removeAll(renewals.refused().keySet());
    renewed.removeAll(renewals.unknown());
    return new PartialRenewalException(
        renewed, renewals.refused().keySet(), renewals.unknown(), primary);
  }

  /** The leases now ending at the call's {@code now + lease}: their shards answered. */
  public Set<RecordId> renewed() {
    return renewed;
  }

  /**
   * The leases whose fence was refused, as {@code heartbeatAll} returns them: their owners lost
   * them.
   */
  public Set<RecordId> refused() {
    return refused;
  }

  /** The leases whose shard did not answer: whether they were renewed is unknown. */
  public Set<RecordId> unknown() {
    return unknown;
  }
}
