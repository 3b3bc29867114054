package dev.idempotency.openapi.internal;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The gates {@code gates} runs against a live API, each with the anti-pattern of {@code
 * docs/anti-patterns.md} its failure reveals (two reveal none of the eleven: they test the key's
 * declared syntax and the stated window's far end).
 */
public enum Gate {
  /** The same request again with the same key: the first answer, byte for byte, no new effect. */
  REPLAY(1, "a key accepted but never stored or honoured"),
  /** The same key with another request: refused, never the first answer replayed. */
  MISMATCH(5, "same key, different payload, silently replayed"),
  /** N identical requests at once with one key: exactly one side effect. */
  CONCURRENT(3, "check-then-insert claiming (a TOCTOU race)"),
  /** The answer while the first request still runs: in flight, not a second run. */
  IN_FLIGHT(4, "binary key state with no in-flight representation"),
  /** Malformed, over-long and missing keys: refused, no side effect. */
  KEY_SYNTAX(0, ""),
  /** Within the stated window a replay; after it, a new request. */
  WINDOW(6, "a replay window shorter than the longest retry chain");

  private final int antiPattern;
  private final String title;

  Gate(int antiPattern, String title) {
    this.antiPattern = antiPattern;
    this.title = title;
  }

  /** The name on the command line and in the output ({@code in_flight}). */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The gate named {@code id}, or null. */
  static @Nullable Gate byId(String id) {
    for (Gate g : values()) {
      if (g.id().equals(id)) {
        return g;
      }
    }
    return null;
  }

  /** The number of the anti-pattern its failure reveals, 0 for none of the eleven. */
  public int antiPattern() {
    return antiPattern;
  }

  /** "anti-pattern 3: check-then-insert claiming (a TOCTOU race)", or "" for none. */
  public String reveals() {
    return antiPattern == 0 ? "" : "anti-pattern " + antiPattern + ": " + title;
  }
}
