package dev.idempotency;

/**
 * The three states of an idempotency key. A key is not binary (seen or not seen): the state in
 * between is what lets a server answer a retry that arrives while the first attempt is still
 * running with "seen, not finished" instead of running it a second time.
 *
 * <pre>
 *            claim                    complete
 *   ABSENT ─────────▶ IN_FLIGHT ───────────────▶ COMPLETE
 *     ▲                │  ▲  │                      │
 *     │     release    │  └──┘ heartbeat,           │ replay window passed
 *     └────────────────┘       checkpoint,          │ or purged after retention
 *     ▲                        takeover             │
 *     └─────────────────────────────────────────────┘
 * </pre>
 *
 * <p>The legal moves are listed, each with its name, in {@code StateTransition} (not exported: the
 * in-memory store and the TCK's model move records by it, and SPEC.md states it for every store).
 */
public enum KeyState {
  /** No record, or a record that no longer counts: released, past the replay window, or purged. */
  ABSENT,
  /** Claimed by an owner holding a lease and a {@link FenceToken}; no terminal result yet. */
  IN_FLIGHT,
  /**
   * A result is stored and, within the replay window, replayed to every retry with the same
   * fingerprint.
   */
  COMPLETE
}
