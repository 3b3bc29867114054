package dev.idempotency.spring.boot.autoconfigure.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Applies property values to the library's builders, turning a builder's refusal into Boot's {@link
 * InvalidConfigurationPropertyValueException}, which fails start-up with a report that names the
 * property, its value and the reason.
 */
public final class PropertyChecks {
  /** The engine's setting names in its messages, and the properties that set them. */
  private static final Map<String, String> ENGINE_NAMES =
      Map.of(
          "replayWindow", "idempotency.replay-window",
          "retention", "idempotency.retention",
          "lease", "idempotency.lease",
          "heartbeatInterval", "idempotency.heartbeat-interval",
          "maxOperationTime", "idempotency.max-operation-time",
          "longestRetryChain", "idempotency.longest-retry-chain");

  private static final Pattern ENGINE_NAME =
      Pattern.compile("\\b(" + String.join("|", ENGINE_NAMES.keySet()) + ")\\b");

  private PropertyChecks() {}

  /** A setter that may refuse its value. */
  @FunctionalInterface
  public interface Setter {
    /** Applies the value. */
    void apply();
  }

  /**
   * Runs {@code setter}; an {@link IllegalArgumentException} (or a {@link NullPointerException} of
   * a missing value, an {@link ArithmeticException} of a size too large) becomes the failure of
   * {@code property} with {@code value}.
   */
  public static void set(String property, @Nullable Object value, Setter setter) {
    try {
      setter.apply();
    } catch (IllegalArgumentException | NullPointerException | ArithmeticException e) {
      throw new InvalidConfigurationPropertyValueException(
          property, value == null ? "(unset)" : value, String.valueOf(e.getMessage()));
    }
  }

  /**
   * The failure of a check across several engine settings, with the engine's setting names in its
   * message replaced by the properties that set them. It names the first property of the message
   * that the application moved from its default (the one most likely set by hand, such as a replay
   * window raised past the default retention), with its value.
   *
   * @param values each engine setting's value by its property name
   * @param defaults each engine setting's default by its property name
   */
  public static InvalidConfigurationPropertyValueException engineSettings(
      IllegalArgumentException e, Map<String, ?> values, Map<String, ?> defaults) {
    String message = String.valueOf(e.getMessage());
    Matcher names = ENGINE_NAME.matcher(message);
    String first = null;
    String changed = null;
    while (names.find()) {
      String property = ENGINE_NAMES.get(names.group(1));
      first = first == null ? property : first;
      if (changed == null && !Objects.equals(values.get(property), defaults.get(property))) {
        changed = property;
      }
    }
    String named = changed != null ? changed : first;
    // one pass, so that a property name put in is never renamed again
    String renamed = names.reset().replaceAll(m -> ENGINE_NAMES.get(m.group(1)));
    if (named == null) {
      return new InvalidConfigurationPropertyValueException("idempotency", "(several)", renamed);
    }
    Object value = values.get(named);
    return new InvalidConfigurationPropertyValueException(
        named, value == null ? "(unset)" : value, renamed);
  }

  /** {@code d}, refused unless positive. */
  public static Duration positive(String property, Duration d) {
    set(
        property,
        d,
        () -> {
          if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(property + " must be > 0, but was " + d);
          }
        });
    return d;
  }

  /** {@code n}, refused unless positive. */
  public static int positive(String property, int n) {
    set(
        property,
        n,
        () -> {
          if (n <= 0) {
            throw new IllegalArgumentException(property + " must be > 0, but was " + n);
          }
        });
    return n;
  }
}
