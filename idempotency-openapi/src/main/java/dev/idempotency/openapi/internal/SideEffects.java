package dev.idempotency.openapi.internal;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Counts an operation's side effects through the state probe: a {@code GET} whose answer holds a
 * number, or an array, that grows by one per effect ({@code probeCount} points at it; without it,
 * the answer itself, or its only array member). The first request of the replay gate calibrates it:
 * when one request does not move the count by one, the probe does not count this operation's
 * effects, and the gates count from the answers instead.
 */
final class SideEffects {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpTarget target;
  private final @Nullable Outgoing probe;
  private final @Nullable String pointer;
  private @Nullable String notCounting;

  SideEffects(HttpTarget target, @Nullable Outgoing probe, @Nullable String pointer) {
    this.target = target;
    this.probe = probe;
    this.pointer = pointer;
    this.notCounting = probe == null ? "no state probe" : null;
  }

  /** Whether counts are taken (a probe, and not found wanting). */
  boolean counting() {
    return notCounting == null;
  }

  /** Why not, when not: for the details of a gate that counted from the answers. */
  String whyNot() {
    return notCounting == null ? "" : notCounting;
  }

  /** The probe, as the details name it. */
  String name() {
    Outgoing p = probe;
    return p == null ? "no probe" : "GET " + p.path();
  }

  /** The count now; null when not counting (and from now on, when the answer holds no count). */
  @Nullable Long count() throws IOException, InterruptedException, TimeoutException {
    Outgoing p = probe;
    if (p == null || notCounting != null) {
      return null;
    }
    Answer a = target.send(p);
    Long n = a.success() ? parse(a.body()) : null;
    if (n == null) {
      notCounting =
          "the probe "
              + name()
              + " answered "
              + a
              + " with no count"
              + (pointer == null ? "" : " at " + pointer);
    }
    return n;
  }

  /** {@code after - before} when counting and both were taken, else null. */
  @Nullable Long delta(@Nullable Long before, @Nullable Long after) {
    return notCounting == null && before != null && after != null ? after - before : null;
  }

  /** After one request, the count must have grown by one, or the probe does not count it. */
  void calibrate(@Nullable Long before, @Nullable Long after) {
    if (before != null && after != null && after - before != 1) {
      notCounting =
          "one request moved the probe "
              + name()
              + " from "
              + before
              + " to "
              + after
              + ", not by 1";
    }
  }

  private @Nullable Long parse(byte[] body) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
    if (root == null) {
      return null;
    }
    JsonNode node = pointer == null ? root : root.at(JsonPointer.compile(pointer));
    if (node.isIntegralNumber()) {
      return node.asLong();
    }
    if (node.isArray()) {
      return (long) node.size();
    }
    if (pointer == null && node.isObject()) {
      List<JsonNode> arrays = new ArrayList<>();
      node.elements()
          .forEachRemaining(
              e -> {
                if (e.isArray()) {
                  arrays.add(e);
                }
              });
      return arrays.size() == 1 ? (long) arrays.get(0).size() : null;
    }
    return null;
  }
}
