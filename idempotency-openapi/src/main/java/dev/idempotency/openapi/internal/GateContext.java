package dev.idempotency.openapi.internal;

import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.KeyDeclaration;
import dev.idempotency.openapi.OperationReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * One keyed operation under the gates: the request as planned, where its key goes, the state probe,
 * and how a replay is marked (this library's {@code Idempotent-Replayed} on an API it serves, else
 * the header the document declares, else nothing known).
 */
final class GateContext {
  /** The header this library's filter marks a replay with. */
  static final String LIBRARY_REPLAY_HEADER = "Idempotent-Replayed";

  final HttpTarget target;
  final OperationReport report;
  final KeyDeclaration key;
  final RequestPlanner.Planned planned;
  final SideEffects effects;
  final @Nullable String replayHeader;

  GateContext(
      HttpTarget target,
      OperationReport report,
      KeyDeclaration key,
      RequestPlanner.Planned planned,
      ApiOrigin origin) {
    this.target = target;
    this.report = report;
    this.key = key;
    this.planned = planned;
    this.effects = new SideEffects(target, planned.probeRequest(), planned.probeCount());
    this.replayHeader =
        origin == ApiOrigin.OWN && key.location() == KeyDeclaration.Location.HEADER
            ? LIBRARY_REPLAY_HEADER
            : key.replayHeader();
  }

  /** The planned request with {@code value} as its key. */
  Outgoing keyed(@Nullable String value) throws KeyedRequests.KeyPlacementException {
    return KeyedRequests.withKey(planned.request(report.method()), key, value);
  }

  /** The request with another body, keyed with {@code value}. */
  Outgoing keyedWithBody(@Nullable String body, String value)
      throws KeyedRequests.KeyPlacementException {
    return KeyedRequests.withKey(planned.request(report.method()).withBody(body), key, value);
  }

  /**
   * A fresh key for one gate, within the document's declared limits: a prefix naming the gate and a
   * random part, cut to the declared {@code maxLength}; a bare UUID when the pattern refuses the
   * prefix.
   */
  String freshKey(Gate gate) {
    String random = UUID.randomUUID().toString().replace("-", "");
    String value = "gates-" + gate.id().replace('_', '-') + "-" + random;
    Integer max = key.maxLength();
    if (max != null && max > 0 && value.length() > max) {
      // the random part first: two gates' keys must differ however short the limit
      String shorter = max >= 14 ? "gates-" + random : random;
      value = shorter.substring(0, Math.min(max, shorter.length()));
    }
    if (!admits(value)) {
      value = UUID.randomUUID().toString();
    }
    return value;
  }

  /** Whether the declared pattern (unanchored, as JSON Schema's) admits {@code value}. */
  boolean admits(String value) {
    String pattern = key.pattern();
    if (pattern == null) {
      return true;
    }
    try {
      return Pattern.compile(pattern).matcher(value).find();
    } catch (PatternSyntaxException e) {
      return true; // a pattern Java cannot read restricts nothing it can check
    }
  }

  Answer send(Outgoing r) throws IOException, InterruptedException, TimeoutException {
    return target.send(r);
  }

  /** Whether {@code a} carries the replay mark (a header whose value is not "false"). */
  boolean markedReplay(Answer a) {
    String h = replayHeader;
    String value = h == null ? null : a.header(h);
    return value != null && !value.strip().toLowerCase(Locale.ROOT).equals("false");
  }

  /** "201 (112 bytes) {"id":...}": an answer and the start of its body, for the details. */
  static String brief(Answer a) {
    String body = new String(a.body(), StandardCharsets.UTF_8).replaceAll("\\s+", " ").strip();
    if (body.length() > 80) {
      body = body.substring(0, 77) + "...";
    }
    return body.isEmpty() ? a.toString() : a + " " + body;
  }
}
