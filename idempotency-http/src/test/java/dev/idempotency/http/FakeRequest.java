package dev.idempotency.http;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/** An in-memory request for unit tests of the handler. */
final class FakeRequest implements HttpRequestView {
  final String method;
  final String path;
  final String query;

  /** The raw path, when it differs from {@link #path} (null: the same). */
  String rawPath;

  final Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
  String principal = "alice";
  byte[] body = new byte[0];
  boolean declareLength = true;
  int bodyReads;

  FakeRequest(String method, String path, String query) {
    this.method = method;
    this.path = path;
    this.query = query;
  }

  static FakeRequest post(String path, String key, String body) {
    FakeRequest r = new FakeRequest("POST", path, null);
    if (key != null) {
      r.header("Idempotency-Key", key);
    }
    r.body = body.getBytes(StandardCharsets.UTF_8);
    return r;
  }

  FakeRequest header(String name, String value) {
    headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
    return this;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String rawPath() {
    return rawPath != null ? rawPath : path;
  }

  @Override
  public Optional<String> query() {
    return Optional.ofNullable(query);
  }

  @Override
  public List<String> headers(String name) {
    return headers.getOrDefault(name, List.of());
  }

  @Override
  public Optional<String> principalName() {
    return Optional.ofNullable(principal);
  }

  @Override
  public OptionalLong contentLength() {
    return declareLength ? OptionalLong.of(body.length) : OptionalLong.empty();
  }

  @Override
  public InputStream body() {
    bodyReads++;
    return new ByteArrayInputStream(body);
  }
}
