package dev.idempotency.openapi;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * How an operation takes the idempotency key, as far as its document (or the caller) says.
 * Immutable.
 *
 * @param location a request header, or a property of the JSON or form body
 * @param name the header's name, or the body property's name
 * @param required whether the document says the key is required
 * @param source where the declaration comes from: the document, a convention named by the caller
 *     ({@link OpenApiAudit.Builder#keyConvention}), or the caller's overlay ({@link
 *     OpenApiAudit.Builder#overlay})
 * @param maxLength the key schema's {@code maxLength}, when declared
 * @param pattern the key schema's {@code pattern}, when declared
 * @param description the document's own words about the key (its {@code description}), when any:
 *     what the Markdown for someone else's API quotes instead of this library's rules
 * @param conflictAnswers the operation's documented {@code 409} and {@code 422} responses, status
 *     to description: what the document says a reused key or a key in flight is answered
 * @param replayHeader a response header the operation declares to mark a replay (a name holding
 *     {@code replay}, such as {@code Idempotent-Replayed}), when it declares one
 */
public record KeyDeclaration(
    Location location,
    String name,
    boolean required,
    Source source,
    @Nullable Integer maxLength,
    @Nullable String pattern,
    @Nullable String description,
    Map<String, String> conflictAnswers,
    @Nullable String replayHeader) {
  /** Where the key travels. */
  public enum Location {
    /** A request header ({@code in: header}). */
    HEADER,
    /** A property of the request body. */
    BODY
  }

  /** Who says the operation takes the key. */
  public enum Source {
    /** The document declares it on the operation. */
    DOCUMENT,
    /** A convention named by the caller: the API's docs state the key once for a method. */
    CONVENTION,
    /** The caller's overlay says {@code keyed}. */
    OVERLAY
  }

  /** Validates and copies the components. */
  public KeyDeclaration {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(source, "source");
    conflictAnswers = Collections.unmodifiableMap(new TreeMap<>(conflictAnswers));
  }

  /** A key with no limits, no words and no documented answers: what a convention gives. */
  public static KeyDeclaration of(Location location, String name, boolean required, Source source) {
    return new KeyDeclaration(location, name, required, source, null, null, null, Map.of(), null);
  }

  /** Whether a convention, not the document, says the operation takes the key. */
  public boolean byConvention() {
    return source == Source.CONVENTION;
  }
}
