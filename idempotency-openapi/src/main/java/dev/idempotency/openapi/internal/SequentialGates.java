package dev.idempotency.openapi.internal;

import dev.idempotency.IdempotencyKey;
import dev.idempotency.openapi.ApiOrigin;
import dev.idempotency.openapi.KeyDeclaration;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The gates that send one request at a time: the replay, the same key with another request, keys
 * the server should refuse, and the replay window. Each counts side effects through the state probe
 * when there is one that counts ({@link SideEffects}).
 */
final class SequentialGates {
  /** The longest window the gate waits out; longer ones are not tested. */
  static final Duration MAX_TESTED_WINDOW = Duration.ofMinutes(2);

  /** The replay gate's result, and what the mismatch gate reuses: the first answer and its key. */
  record Replayed(GateResult result, @Nullable Answer first, String key) {}

  private SequentialGates() {}

  /**
   * The request with a fresh key, then again with the same key: the second must be the first
   * answer, byte for byte, marked as a replay where that is known, and change nothing. The first
   * must be accepted (a 2xx): every other gate needs a request the server takes.
   */
  static Replayed replay(GateContext c)
      throws IOException,
          InterruptedException,
          TimeoutException,
          KeyedRequests.KeyPlacementException {
    Gate g = Gate.REPLAY;
    String key = c.freshKey(g);
    Outgoing r = c.keyed(key);
    Long c0 = c.effects.count();
    Answer first = c.send(r);
    if (!first.success()) {
      return new Replayed(
          GateResult.of(
              g,
              GateResult.Status.ERROR,
              "the request was answered "
                  + GateContext.brief(first)
                  + ": the gates need one the server accepts; give it in --requests"),
          null,
          key);
    }
    Long c1 = c.effects.count();
    c.effects.calibrate(c0, c1);
    Answer second = c.send(r);
    Long c2 = c.effects.count();
    if (!second.sameBytes(first)) {
      return new Replayed(
          second.success()
              ? GateResult.antiPattern(
                  g,
                  "the retry ran again: answered "
                      + GateContext.brief(second)
                      + " where the first was "
                      + GateContext.brief(first))
              : GateResult.fail(
                  g,
                  "the retry was answered "
                      + GateContext.brief(second)
                      + ", not with the first answer "
                      + first
                      + ": a client cannot learn how its request ended"),
          first,
          key);
    }
    Long moved = c.effects.delta(c1, c2);
    if (moved != null && moved != 0) {
      return new Replayed(
          GateResult.antiPattern(
              g, "the retry got the first answer, but the probe moved from " + c1 + " to " + c2),
          first,
          key);
    }
    String marker = c.replayHeader;
    if (marker != null && (!c.markedReplay(second) || c.markedReplay(first))) {
      return new Replayed(
          GateResult.fail(
              g,
              "the retry got the first answer, byte for byte, but "
                  + (c.markedReplay(first)
                      ? "the first answer is marked " + marker
                      : "the replay is not marked " + marker)
                  + " as "
                  + (c.key.replayHeader() != null ? "the document declares" : "this library does")),
          first,
          key);
    }
    return new Replayed(
        GateResult.pass(
            g,
            "the retry got the first answer, byte for byte ("
                + first
                + ")"
                + (marker == null ? "" : ", marked " + marker + ": " + second.header(marker))
                + effects(c, c0, c2)),
        first,
        key);
  }

  /** The replay gate's key with another body: refused, not the first answer, no side effect. */
  static GateResult mismatch(GateContext c, Answer first, String key)
      throws IOException,
          InterruptedException,
          TimeoutException,
          KeyedRequests.KeyPlacementException {
    Gate g = Gate.MISMATCH;
    String other =
        c.planned.otherBody() != null
            ? c.planned.otherBody()
            : KeyedRequests.otherBody(
                c.planned.body(),
                c.key.location() == KeyDeclaration.Location.BODY ? c.key.name() : null);
    if (other == null) {
      return GateResult.of(
          g,
          GateResult.Status.NOT_TESTED,
          "no other request to send: the body has no number or string to change; give"
              + " \"otherBody\" in --requests");
    }
    Long c0 = c.effects.count();
    Answer answer = c.send(c.keyedWithBody(other, key));
    Long c1 = c.effects.count();
    if (answer.sameBytes(first)) {
      return GateResult.antiPattern(
          g, "another body with the same key got the first answer, byte for byte (" + first + ")");
    }
    if (answer.success()) {
      return GateResult.antiPattern(
          g, "another body with the same key ran: answered " + GateContext.brief(answer));
    }
    Long delta = c.effects.delta(c0, c1);
    if (delta != null && delta > 0) {
      return GateResult.antiPattern(
          g, "refused (" + answer + "), but the probe moved from " + c0 + " to " + c1);
    }
    int s = answer.status();
    return GateResult.pass(
        g,
        "another body with the same key was refused: "
            + GateContext.brief(answer)
            + (s == 409 || s == 422 ? "" : " (not the usual 409 or 422)")
            + effects(c, c0, c1));
  }

  /**
   * Keys the server should refuse, each with a fresh request: for an API this library serves, its
   * syntax (a space, 256 characters); for another, what the document declares (one over its {@code
   * maxLength}, a value its {@code pattern} refuses); and no key where it is required.
   */
  static GateResult keySyntax(GateContext c, ApiOrigin origin)
      throws IOException,
          InterruptedException,
          TimeoutException,
          KeyedRequests.KeyPlacementException {
    Gate g = Gate.KEY_SYNTAX;
    Map<String, @Nullable String> tries = badKeys(c, origin);
    if (tries.isEmpty()) {
      return GateResult.of(
          g,
          GateResult.Status.NOT_TESTED,
          "the document declares no limit for the key (no maxLength, no pattern) and does not"
              + " require it: nothing it promises to refuse");
    }
    List<String> refused = new ArrayList<>();
    for (Map.Entry<String, @Nullable String> t : tries.entrySet()) {
      Long c0 = c.effects.count();
      Answer a = c.send(c.keyed(t.getValue()));
      Long c1 = c.effects.count();
      Long delta = c.effects.delta(c0, c1);
      boolean moved = delta != null && delta > 0;
      if (a.success() || moved) {
        return GateResult.fail(
            g,
            t.getKey()
                + " was accepted: "
                + GateContext.brief(a)
                + (moved ? ", and the probe moved from " + c0 + " to " + c1 : ""));
      }
      refused.add(t.getKey() + " → " + a.status());
    }
    return GateResult.pass(g, "refused: " + String.join(", ", refused));
  }

  private static Map<String, @Nullable String> badKeys(GateContext c, ApiOrigin origin) {
    Map<String, @Nullable String> tries = new LinkedHashMap<>();
    KeyDeclaration k = c.key;
    boolean header = k.location() == KeyDeclaration.Location.HEADER;
    if (origin == ApiOrigin.OWN && header) {
      tries.put("a key with a space", "gates bad key");
      tries.put(
          "a key of " + (IdempotencyKey.MAX_LENGTH + 1) + " characters",
          "k".repeat(IdempotencyKey.MAX_LENGTH + 1));
    } else {
      Integer max = k.maxLength();
      if (max != null && max >= 0 && max < 100_000) {
        tries.put("a key of " + (max + 1) + " characters", "k".repeat(max + 1));
      }
      if (k.pattern() != null) {
        // a header's value loses its leading and trailing spaces on the way: only inner ones count
        List<String> candidates =
            header
                ? List.of("has space", "semi;colon", "comma,value")
                : List.of(" leading space", "trailing space ", "has space", "ünïcode", "");
        for (String v : candidates) {
          if (!c.admits(v)) {
            tries.put("the key \"" + v + "\", which its pattern refuses", v);
            break;
          }
        }
      }
    }
    if (k.required()) {
      tries.put("no key", null);
    }
    return tries;
  }

  /**
   * A fresh key; half the stated window later the retry must still be the replay (else the key was
   * forgotten within its window); past the window (plus a tenth, at least a second) the same key
   * must be a new request.
   */
  static GateResult window(
      GateContext c, @Nullable Duration window, ApiOrigin origin, LiveGates.Waiter waiter)
      throws IOException,
          InterruptedException,
          TimeoutException,
          KeyedRequests.KeyPlacementException {
    Gate g = Gate.WINDOW;
    if (window == null) {
      return GateResult.of(
          g,
          GateResult.Status.NOT_TESTED,
          origin == ApiOrigin.OWN
              ? "no --window: the engine's default window is 24 h, too long to wait for; run the"
                  + " test server with a short replayWindow and give it as --window"
              : "no --window: give the window the provider states, if it is short enough to wait"
                  + " for");
    }
    if (window.compareTo(MAX_TESTED_WINDOW) > 0) {
      return GateResult.of(
          g,
          GateResult.Status.NOT_TESTED,
          "the window " + window + " is longer than " + MAX_TESTED_WINDOW + ": not waited for");
    }
    Outgoing r = c.keyed(c.freshKey(g));
    Answer first = c.send(r);
    if (!first.success()) {
      return GateResult.of(g, GateResult.Status.ERROR, "answered " + GateContext.brief(first));
    }
    Duration half = window.dividedBy(2);
    waiter.waitFor(half);
    Answer within = c.send(r);
    if (!within.sameBytes(first)) {
      return GateResult.antiPattern(
          g,
          "forgotten within its stated window of "
              + window
              + ": "
              + half
              + " after the first, the retry was answered "
              + GateContext.brief(within));
    }
    Duration margin =
        window.dividedBy(10).compareTo(Duration.ofSeconds(1)) > 0
            ? window.dividedBy(10)
            : Duration.ofSeconds(1);
    waiter.waitFor(window.minus(half).plus(margin));
    Long c1 = c.effects.count();
    Answer after = c.send(r);
    Long c2 = c.effects.count();
    if (!after.success()) {
      return GateResult.fail(
          g,
          "past its window the key was refused ("
              + GateContext.brief(after)
              + "), not taken as a new request");
    }
    Long delta = c.effects.delta(c1, c2);
    boolean counted = delta != null;
    boolean replayed;
    if (delta != null) {
      replayed = delta == 0;
    } else if (c.replayHeader != null) {
      replayed = c.markedReplay(after);
    } else if (after.sameBytes(first)) {
      return GateResult.of(
          g,
          GateResult.Status.INCONCLUSIVE,
          "past the window the answer was the first one's bytes again; with no probe and no"
              + " replay header nothing tells a replay from a new run that answers the same");
    } else {
      replayed = false;
    }
    if (replayed) {
      return GateResult.fail(
          g,
          "past the stated window of "
              + window
              + " the key was still replayed: the window is longer than stated"
              + (counted ? " (probe " + c1 + " → " + c2 + ")" : ""));
    }
    return GateResult.pass(
        g,
        "replayed "
            + half
            + " after the first; a new request "
            + window.plus(margin)
            + " after it"
            + (counted ? " (probe " + c1 + " → " + c2 + ")" : ""));
  }

  /** ", side effects counted by the probe: a → b", or why they were not counted. */
  static String effects(GateContext c, @Nullable Long before, @Nullable Long after) {
    if (c.effects.delta(before, after) != null) {
      return "; probe " + c.effects.name() + ": " + before + " → " + after;
    }
    return "; side effects not counted (" + c.effects.whyNot() + ")";
  }
}
