package dev.idempotency;

import java.util.Objects;

/**
 * What a piece of guarded work answers, and what becomes of that answer: the response its caller
 * gets ({@link #sent()}), and whether it is stored for replay, in which form, or not at all.
 *
 * <ul>
 *   <li>A {@link StoredResponse} is sent and stored as it is, unless the engine's stored-response
 *       policy excludes it (then the key is released). A {@linkplain StoredResponse#notStoredMarker
 *       not-stored marker} is always stored: it says the work ran.
 *   <li>{@link #storedAs(StoredResponse, StoredResponse)}: the caller gets one response, and
 *       another form of it is stored, such as a response with fewer headers, or the not-stored
 *       marker in place of a response too large to keep. The policy judges the response sent.
 *   <li>{@link #released(StoredResponse, String)}: the caller gets the response, nothing is stored,
 *       and the key is released, so a retry runs the work anew: for an answer that is not the
 *       request's result (a gRPC {@code UNAVAILABLE}, say). Work in one transaction rolls its
 *       writes back with the claim; stepped work that has committed a recovery point is left in
 *       flight at that point instead, as after a failure, for a retry or the completer to resume.
 * </ul>
 *
 * <p>Each binding builds the answer from its own rules (the HTTP layer's header allowlist and size
 * limit, say), and the engine does the storing: no binding writes to the store itself.
 */
public sealed interface Answer permits StoredResponse, Answer.StoredAs, Answer.Released {

  /** The response the caller of the run that produced this answer gets. */
  StoredResponse sent();

  /**
   * An answer whose caller gets {@code sent}, while {@code stored} is kept for replays.
   *
   * @throws NullPointerException if an argument is null
   */
  static Answer storedAs(StoredResponse sent, StoredResponse stored) {
    return new StoredAs(sent, stored);
  }

  /**
   * An answer whose caller gets {@code sent}, with nothing stored and the key released.
   *
   * @param reason why it is not stored, for the event log
   * @throws NullPointerException if an argument is null
   */
  static Answer released(StoredResponse sent, String reason) {
    return new Released(sent, reason);
  }

  /**
   * {@link Answer#storedAs}'s answer.
   *
   * @param sent what the caller gets
   * @param stored what is kept for replays
   */
  record StoredAs(StoredResponse sent, StoredResponse stored) implements Answer {
    /**
     * @throws NullPointerException if an argument is null
     */
    public StoredAs {
      Objects.requireNonNull(sent, "sent");
      Objects.requireNonNull(stored, "stored");
    }
  }

  /**
   * {@link Answer#released}'s answer.
   *
   * @param sent what the caller gets
   * @param reason why nothing is stored
   */
  record Released(StoredResponse sent, String reason) implements Answer {
    /**
     * @throws NullPointerException if an argument is null
     */
    public Released {
      Objects.requireNonNull(sent, "sent");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
