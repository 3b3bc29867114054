package dev.idempotency.servlet;

import dev.idempotency.StoredResponse;
import dev.idempotency.http.IdempotencyHttp;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.PrintWriter;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Captures everything the application writes, and sends nothing: the filter writes the response
 * only after the engine stored it. {@code sendError} becomes a small RFC 9457 problem body, so the
 * bytes stored are the bytes sent. This class keeps the status and the headers; the body is a
 * {@link CapturedBody}.
 */
final class CapturingResponse extends HttpServletResponseWrapper {
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

  private int status = SC_OK;

  /** lower-case name → (name as first set, values) */
  private final Map<String, Map.Entry<String, List<String>>> headers = new LinkedHashMap<>();

  private @Nullable String contentType;
  private @Nullable String characterEncoding;
  private @Nullable Locale locale;
  private final CapturedBody body = new CapturedBody();
  private boolean committed;

  CapturingResponse(HttpServletResponse response) {
    super(response);
  }

  /** The complete response the application produced. */
  StoredResponse toStoredResponse() {
    byte[] bytes = body.toByteArray();
    Map<String, List<String>> out = new LinkedHashMap<>();
    String type = effectiveContentType();
    if (type != null) {
      out.put("Content-Type", List.of(type));
    }
    if (locale != null && !headers.containsKey("content-language")) {
      out.put("Content-Language", List.of(locale.toLanguageTag()));
    }
    headers.values().forEach(e -> out.put(e.getKey(), List.copyOf(e.getValue())));
    return StoredResponse.of(status, out, bytes);
  }

  private @Nullable String effectiveContentType() {
    if (contentType == null) {
      return null;
    }
    if (characterEncoding != null && !contentType.toLowerCase(Locale.ROOT).contains("charset=")) {
      return contentType + ";charset=" + characterEncoding;
    }
    return contentType;
  }

  // ---- status and headers

  @Override
  public void setStatus(int sc) {
    if (!committed) {
      status = sc;
    }
  }

  @Override
  public int getStatus() {
    return status;
  }

  @Override
  public void setHeader(@Nullable String name, @Nullable String value) {
    if (committed || name == null) {
      return;
    }
    if (special(name, value)) {
      return;
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (value == null) {
      headers.remove(lower);
    } else {
      List<String> values = new ArrayList<>();
      values.add(value);
      headers.put(lower, Map.entry(name, values));
    }
  }

  @Override
  public void addHeader(@Nullable String name, @Nullable String value) {
    if (committed || name == null || value == null) {
      return;
    }
    if (special(name, value)) {
      return;
    }
    headers
        .computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> Map.entry(name, new ArrayList<>()))
        .getValue()
        .add(value);
  }

  /**
   * Content-Type and Content-Length set as headers go through their own methods, as in the
   * container.
   */
  private boolean special(String name, @Nullable String value) {
    if (name.equalsIgnoreCase("Content-Type")) {
      setContentType(value);
      return true;
    }
    return name.equalsIgnoreCase(
        "Content-Length"); // the filter sets the real length when it writes
  }

  @Override
  public void setIntHeader(String name, int value) {
    setHeader(name, Integer.toString(value));
  }

  @Override
  public void addIntHeader(String name, int value) {
    addHeader(name, Integer.toString(value));
  }

  @Override
  public void setDateHeader(String name, long date) {
    setHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
  }

  @Override
  public void addDateHeader(String name, long date) {
    addHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
  }

  @Override
  public boolean containsHeader(String name) {
    return name.equalsIgnoreCase("Content-Type")
        ? contentType != null
        : headers.containsKey(name.toLowerCase(Locale.ROOT));
  }

  @Override
  public @Nullable String getHeader(String name) {
    if (name.equalsIgnoreCase("Content-Type")) {
      return effectiveContentType();
    }
    Map.Entry<String, List<String>> e = headers.get(name.toLowerCase(Locale.ROOT));
    return e == null || e.getValue().isEmpty() ? null : e.getValue().get(0);
  }

  @Override
  public Collection<String> getHeaders(String name) {
    if (name.equalsIgnoreCase("Content-Type")) {
      String type = effectiveContentType();
      return type == null ? List.of() : List.of(type);
    }
    Map.Entry<String, List<String>> e = headers.get(name.toLowerCase(Locale.ROOT));
    return e == null ? List.of() : List.copyOf(e.getValue());
  }

  @Override
  public Collection<String> getHeaderNames() {
    List<String> names = new ArrayList<>();
    if (contentType != null) {
      names.add("Content-Type");
    }
    headers.values().forEach(e -> names.add(e.getKey()));
    return names;
  }

  @Override
  public void addCookie(Cookie cookie) {
    StringBuilder sb =
        new StringBuilder(cookie.getName())
            .append('=')
            .append(cookie.getValue() == null ? "" : cookie.getValue());
    cookie
        .getAttributes()
        .forEach(
            (name, value) -> {
              sb.append("; ").append(name);
              if (value != null && !value.isEmpty()) {
                sb.append('=').append(value);
              }
            });
    addHeader("Set-Cookie", sb.toString());
  }

  // ---- content type, encoding, length, locale

  @Override
  public void setContentType(@Nullable String type) {
    if (!committed) {
      contentType = type;
    }
  }

  @Override
  public @Nullable String getContentType() {
    return effectiveContentType();
  }

  @Override
  public void setCharacterEncoding(@Nullable String charset) {
    if (!committed && !body.writerTaken()) {
      characterEncoding = charset;
    }
  }

  /** New in Servlet 6.1; the wrapper would forward it to the real response, past the capture. */
  @Override
  public void setCharacterEncoding(@Nullable Charset charset) {
    setCharacterEncoding(charset == null ? null : charset.name());
  }

  @Override
  public String getCharacterEncoding() {
    if (characterEncoding != null) {
      return characterEncoding;
    }
    if (contentType != null) {
      int at = contentType.toLowerCase(Locale.ROOT).indexOf("charset=");
      if (at >= 0) {
        return contentType.substring(at + 8).replace("\"", "").split(";", -1)[0].trim();
      }
      if (isJson(contentType)) {
        return StandardCharsets.UTF_8
            .name(); // RFC 8259: JSON is UTF-8, and the container assumes it too
      }
    }
    return StandardCharsets.ISO_8859_1.name();
  }

  /**
   * {@code *}{@code /json} and {@code *+json}: UTF-8 without a charset parameter (RFC 8259 defines
   * none).
   */
  static boolean isJson(String contentType) {
    int semicolon = contentType.indexOf(';');
    String mediaType =
        (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
            .trim()
            .toLowerCase(Locale.ROOT);
    return mediaType.endsWith("/json") || mediaType.endsWith("+json");
  }

  @Override
  public void setContentLength(int len) {
    // the filter sets the length of what it writes
  }

  @Override
  public void setContentLengthLong(long len) {
    // the filter sets the length of what it writes
  }

  @Override
  public void setLocale(@Nullable Locale loc) {
    if (!committed) {
      locale = loc;
    }
  }

  @Override
  public Locale getLocale() {
    return locale != null ? locale : Locale.getDefault();
  }

  // ---- body

  @Override
  public ServletOutputStream getOutputStream() {
    return body.outputStream();
  }

  @Override
  public PrintWriter getWriter() throws UnsupportedEncodingException {
    return body.writer(this::writerCharset);
  }

  /** The charset of the writer, asked once, when the application first takes it. */
  private Charset writerCharset() throws UnsupportedEncodingException {
    Charset charset;
    try {
      charset = Charset.forName(getCharacterEncoding());
    } catch (IllegalArgumentException e) {
      throw new UnsupportedEncodingException(getCharacterEncoding());
    }
    if (characterEncoding == null && (contentType == null || !isJson(contentType))) {
      // as the container does: the writer's charset goes into Content-Type (JSON's implied UTF-8
      // does not)
      characterEncoding = charset.name();
    }
    return charset;
  }

  @Override
  public void flushBuffer() {
    body.flush();
    committed = true;
  }

  @Override
  public boolean isCommitted() {
    return committed;
  }

  @Override
  public void resetBuffer() {
    if (committed) {
      throw new IllegalStateException("the response is committed");
    }
    body.clear();
  }

  @Override
  public void reset() {
    resetBuffer();
    status = SC_OK;
    headers.clear();
    contentType = null;
    characterEncoding = null;
    locale = null;
  }

  @Override
  public void setBufferSize(int size) {
    // everything is buffered until the filter writes it
  }

  @Override
  public int getBufferSize() {
    return Integer.MAX_VALUE;
  }

  // ---- errors and redirects

  @Override
  public void sendError(int sc) {
    sendError(sc, null);
  }

  @Override
  public void sendError(int sc, @Nullable String msg) {
    if (committed) {
      throw new IllegalStateException("the response is committed");
    }
    StoredResponse error = IdempotencyHttp.applicationError(sc, msg);
    reset();
    status = sc;
    contentType = error.firstHeader("Content-Type").orElse(IdempotencyHttp.PROBLEM_JSON);
    body.closeWith(error.body());
    committed = true;
  }

  // Servlet 6.1's HttpServletResponseWrapper forwards every overload to the real response: each one
  // must be captured.

  @Override
  public void sendRedirect(String location) {
    sendRedirect(location, SC_FOUND, true);
  }

  @Override
  public void sendRedirect(String location, int sc) {
    sendRedirect(location, sc, true);
  }

  @Override
  public void sendRedirect(String location, boolean clearBuffer) {
    sendRedirect(location, SC_FOUND, clearBuffer);
  }

  @Override
  public void sendRedirect(String location, int sc, boolean clearBuffer) {
    if (committed) {
      throw new IllegalStateException("the response is committed");
    }
    if (clearBuffer) {
      resetBuffer();
    }
    status = sc;
    setHeader("Location", location);
    body.close();
    committed = true;
  }
}
