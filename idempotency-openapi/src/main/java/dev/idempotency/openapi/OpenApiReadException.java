package dev.idempotency.openapi;

import java.util.List;

/**
 * A document could not be read: missing, not YAML or JSON, not OpenAPI 3.0 or 3.1, or invalid. The
 * {@link #messages()} are the parser's, each naming where in which document.
 */
public final class OpenApiReadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Not serialized: the exception is never sent anywhere. */
  private final transient List<String> messages;

  private final String summary;

  /**
   * Creates the exception.
   *
   * @param summary one line saying which input failed
   * @param messages the parser's messages with their locations, at least one
   */
  public OpenApiReadException(String summary, List<String> messages) {
    super(summary + ": " + String.join("; ", messages));
    this.messages = List.copyOf(messages);
    this.summary = summary;
  }

  /** Which input failed: a file or directory as given. */
  public String summary() {
    return summary;
  }

  /** The parser's messages, each with its location. */
  public List<String> messages() {
    return messages;
  }
}
