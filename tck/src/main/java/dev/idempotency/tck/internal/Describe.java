package dev.idempotency.tck.internal;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.RecordSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Short, exact descriptions of SPI values for failure messages and printed histories. */
public final class Describe {
  private Describe() {}

  /** A claim outcome, with everything it carries. */
  public static String outcome(@Nullable ClaimOutcome outcome) {
    if (outcome == null) {
      return "null";
    }
    if (outcome instanceof ClaimOutcome.Claimed c) {
      return "Claimed("
          + c.fence()
          + ", takeover="
          + c.takeover()
          + ", resumeFrom="
          + c.resumeFrom().map(Describe::point).orElse("none")
          + ")";
    }
    if (outcome instanceof ClaimOutcome.InFlight f) {
      return "InFlight(leaseRemaining=" + f.leaseRemaining() + ")";
    }
    if (outcome instanceof ClaimOutcome.Completed c) {
      return "Completed(" + response(c.response()) + ", completedAt=" + c.completedAt() + ")";
    }
    if (outcome instanceof ClaimOutcome.Mismatch m) {
      return "Mismatch(" + m.existingState() + ")";
    }
    return outcome.toString();
  }

  /**
   * A response: status, headers with values in order, and the body (text when printable, else its
   * size).
   */
  public static String response(@Nullable StoredResponse r) {
    if (r == null) {
      return "null";
    }
    return r.status() + " " + r.headers() + " " + body(r.body());
  }

  /** A body: quoted when it is short printable ASCII, else its length and first bytes. */
  public static String body(byte[] body) {
    boolean printable = body.length <= 80;
    for (int i = 0; printable && i < body.length; i++) {
      printable = body[i] >= 0x20 && body[i] < 0x7f;
    }
    if (printable) {
      return "\"" + new String(body, StandardCharsets.US_ASCII) + "\"";
    }
    StringBuilder sb = new StringBuilder("<" + body.length + " bytes");
    for (int i = 0; i < Math.min(8, body.length); i++) {
      sb.append(i == 0 ? ": " : " ").append(String.format("%02x", body[i] & 0xff));
    }
    return sb.append(body.length > 8 ? " …>" : ">").toString();
  }

  /** A recovery point's name. */
  public static String point(@Nullable RecoveryPoint p) {
    return p == null ? "none" : p.name();
  }

  /** A fingerprint, shortened. */
  public static String fingerprint(Fingerprint f) {
    String hex = f.hex();
    return "fp:" + (hex.length() > 8 ? hex.substring(0, 8) + "…" : hex);
  }

  /** A snapshot, all of it. */
  public static String snapshot(@Nullable RecordSnapshot s) {
    if (s == null) {
      return "null";
    }
    return "{"
        + s.id()
        + " "
        + s.state()
        + " "
        + fingerprint(s.fingerprint())
        + " "
        + s.fence()
        + s.leaseExpiresAt().map(t -> " lease→" + t).orElse("")
        + s.recoveryPoint().map(p -> " point=" + p.name()).orElse("")
        + s.response().map(r -> " response=" + response(r)).orElse("")
        + s.completedAt().map(t -> " completedAt=" + t).orElse("")
        + "}";
  }

  /** An optional snapshot: "absent" when empty. */
  public static String snapshot(Optional<RecordSnapshot> s) {
    return s == null ? "null" : s.map(Describe::snapshot).orElse("absent");
  }

  /** A list of snapshots. */
  public static String snapshots(List<RecordSnapshot> list) {
    if (list == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder("[");
    for (RecordSnapshot s : list) {
      sb.append(sb.length() > 1 ? ", " : "").append(snapshot(s));
    }
    return sb.append("]").toString();
  }

  /**
   * An instant relative to a base, e.g. {@code t+30.001s}, which reads better in histories than the
   * date.
   */
  public static String relative(Instant t, Instant base) {
    long ms = t.toEpochMilli() - base.toEpochMilli();
    return "t"
        + (ms >= 0 ? "+" : "-")
        + Math.abs(ms) / 1000
        + "."
        + String.format("%03d", Math.abs(ms) % 1000)
        + "s";
  }
}
