package dev.idempotency.core;

import dev.idempotency.Answer;
import dev.idempotency.StoredResponse;
import org.jspecify.annotations.Nullable;

/**
 * What becomes of a work's {@link Answer} under the engine's {@link StoredResponsePolicy}: the
 * response its caller gets, the form to store, and whether the key is to be released instead.
 *
 * @param sent what the caller gets
 * @param stored what is stored: the answer's stored form; when {@code release} is set, what is
 *     stored instead when the key cannot be released (stepped work that committed a recovery
 *     point), or null when nothing is (an answer that asked to be released: the key is then left in
 *     flight for a retry or the completer to resume, as after a failure)
 * @param release why the key is released, or null when {@code stored} is stored
 */
record Disposition(StoredResponse sent, @Nullable StoredResponse stored, @Nullable String release) {

  /**
   * The disposition of {@code answer}: a not-stored marker is stored whatever the policy says (the
   * work ran), any other answer the policy judges by the response its caller gets.
   */
  static Disposition of(Answer answer, StoredResponsePolicy policy) {
    if (answer instanceof Answer.Released released) {
      // nothing to store: what the work said is not an answer to keep (a gRPC UNAVAILABLE, say)
      return new Disposition(released.sent(), null, released.reason());
    }
    StoredResponse sent = answer.sent();
    StoredResponse stored =
        answer instanceof Answer.StoredAs storedAs ? storedAs.stored() : answer.sent();
    boolean marker = answer instanceof StoredResponse && sent.notStoredReason().isPresent();
    if (!marker && !policy.shouldStore(sent)) {
      return new Disposition(
          sent, stored, "status " + sent.status() + " is not stored (storedResponsePolicy)");
    }
    return new Disposition(sent, stored, null);
  }
}
