package dev.idempotency.http;

/**
 * The application threw instead of producing a response. {@link #getCause()} is what it threw; the
 * adapter rethrows it to the framework, which answers as it would without the handler (typically
 * 500). Nothing was stored: the key was released (a retry runs the request anew), or, if the
 * release itself failed, it stays in flight until its lease expires.
 */
public final class ApplicationFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final boolean keyReleased;

  ApplicationFailedException(Throwable cause, boolean keyReleased) {
    super(
        "The application threw "
            + cause.getClass().getName()
            + "; "
            + (keyReleased
                ? "the idempotency key was released, so a retry runs the request anew"
                : "the idempotency key stays in flight until its lease expires"),
        cause);
    this.keyReleased = keyReleased;
  }

  /** Whether the key was released (a retry runs anew at once). */
  public boolean keyReleased() {
    return keyReleased;
  }
}
