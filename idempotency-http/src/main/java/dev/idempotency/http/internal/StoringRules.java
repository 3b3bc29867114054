package dev.idempotency.http.internal;

import dev.idempotency.StoredResponse;
import dev.idempotency.http.BodyRedactor;
import dev.idempotency.http.IdempotencyHttp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What of a live response the handler stores for replay: the allowlisted headers ({@code
 * storedHeaders}, matched ignoring case), the body as the {@code bodyRedactor} rewrites it, and in
 * place of a body over {@code maxStoredResponseBytes} the not-stored marker; and how a stored
 * response is replayed. Immutable and thread-safe.
 */
public final class StoringRules {
  private final Set<String> storedHeaders;
  private final BodyRedactor bodyRedactor;
  private final int maxStoredResponseBytes;

  /**
   * @param storedHeaders the header names stored, a case-insensitive set
   * @param bodyRedactor the hook that rewrites stored bodies
   * @param maxStoredResponseBytes the largest body stored
   */
  public StoringRules(
      Set<String> storedHeaders, BodyRedactor bodyRedactor, int maxStoredResponseBytes) {
    this.storedHeaders = storedHeaders;
    this.bodyRedactor = bodyRedactor;
    this.maxStoredResponseBytes = maxStoredResponseBytes;
  }

  /**
   * {@code live} with only the allowlisted headers and the redacted body; its size is not checked.
   */
  public StoredResponse filtered(StoredResponse live) {
    Map<String, List<String>> kept = new LinkedHashMap<>();
    live.headers()
        .forEach(
            (name, values) -> {
              // never the marker's own header: a stored response that carried it could pass for
              // a not-stored marker, which the engine stores whatever its policy says
              if (storedHeaders.contains(name)
                  && !name.equalsIgnoreCase(StoredResponse.NOT_STORED_HEADER)) {
                kept.put(name, values);
              }
            });
    byte[] redacted =
        Objects.requireNonNull(
            bodyRedactor.redact(StoredResponse.of(live.status(), kept, live.body())),
            "bodyRedactor returned null");
    return StoredResponse.of(live.status(), kept, redacted);
  }

  /**
   * Whether {@code filtered}, a response as {@link #filtered} returns it, is small enough to store.
   */
  public boolean fits(StoredResponse filtered) {
    return filtered.bodyLength() <= maxStoredResponseBytes;
  }

  /**
   * The marker stored in place of {@code filtered}, too large to store, of a response with {@code
   * liveStatus}: the engine's ({@link StoredResponse#notStoredMarker}), which the engine stores
   * whatever its policy says of 500, and which a replay answers {@code 500
   * idempotency_response_not_stored} ({@link Problems#notStored(String)}).
   */
  public StoredResponse notStoredMarker(int liveStatus, StoredResponse filtered) {
    return StoredResponse.notStoredMarker(
        liveStatus,
        "it was "
            + filtered.bodyLength()
            + " bytes, over the storable limit of "
            + maxStoredResponseBytes
            + " bytes");
  }

  /**
   * What is stored for {@code live}: {@link #filtered}, or the not-stored marker when that is too
   * large.
   */
  public StoredResponse storedForm(StoredResponse live) {
    StoredResponse filtered = filtered(live);
    return fits(filtered) ? filtered : notStoredMarker(live.status(), filtered);
  }

  /**
   * The rules {@code committed}, a response a transactional store committed as it was given,
   * breaks: each a sentence for the log; empty when it could have been stored by them.
   */
  public List<String> brokenBy(StoredResponse committed) {
    List<String> broken = new ArrayList<>();
    committed.headers().keySet().stream()
        .filter(name -> !storedHeaders.contains(name))
        .forEach(name -> broken.add("header " + name + " is not in storedHeaders"));
    if (committed.bodyLength() > maxStoredResponseBytes) {
      broken.add(
          "its body ("
              + committed.bodyLength()
              + " bytes) exceeds maxStoredResponseBytes ("
              + maxStoredResponseBytes
              + ")");
    }
    return broken;
  }

  /** {@code stored} as a replay sends it: with {@code Idempotent-Replayed: true}. */
  public static StoredResponse replayed(StoredResponse stored) {
    Map<String, List<String>> headers = new LinkedHashMap<>(stored.headers());
    headers.put(IdempotencyHttp.REPLAYED_HEADER, List.of("true"));
    return StoredResponse.of(stored.status(), headers, stored.body());
  }
}
