package dev.idempotency;

/**
 * A fenced write was refused: the fence token the owner presented is no longer the record's current
 * one (another claim took the record over after the lease expired), or the record is no longer in
 * flight (it was completed, released or purged). The write changed nothing. The owner must stop:
 * its work may be repeated by the new owner, which is why leases are heartbeated and why downstream
 * calls should carry the fence or a derived key.
 */
public final class LeaseLostException extends KeyStoreException {
  private static final long serialVersionUID = 1L;

  private final transient RecordId id;
  private final transient FenceToken fence;

  /**
   * @param id the record written
   * @param fence the stale token that was presented
   * @param detail what the store found instead, for example "current fence is fence#7" or "record
   *     is COMPLETE"
   */
  public LeaseLostException(RecordId id, FenceToken fence, String detail) {
    super(
        "Lease lost on "
            + id
            + ": write with "
            + fence
            + " refused, "
            + detail
            + ". Another owner took the record over after the lease expired, or it is no longer in flight;"
            + " heartbeat more often than the lease, or lengthen the lease.");
    this.id = id;
    this.fence = fence;
  }

  /** The record the refused write was for. */
  public RecordId id() {
    return id;
  }

  /** The stale fence token that was presented. */
  public FenceToken fence() {
    return fence;
  }
}
