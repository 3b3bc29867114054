package dev.idempotency.servlet;

import dev.idempotency.StoredResponse;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
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

/**
 * Captures everything the application writes, and sends nothing: the filter writes the response only after the
 * engine stored it. {@code sendError} becomes a small RFC 9457 problem body, so the bytes stored are the bytes sent.
 */
final class CapturingResponse extends HttpServletResponseWrapper {
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

  private int status = SC_OK;
  /** lower-case name → (name as first set, values) */
  private final Map<String, Map.Entry<String, List<String>>> headers = new LinkedHashMap<>();
  private String contentType;
  private String characterEncoding;
  private Locale locale;
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  /** What the application writes to; discards everything once sendError or sendRedirect closed the response. */
  private final OutputStream sink = new OutputStream() {
    @Override
    public void write(int b) {
      if (!closed) {
        body.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (!closed) {
        body.write(b, off, len);
      }
    }
  };
  private boolean closed;
  private ServletOutputStream stream;
  private PrintWriter writer;
  private boolean committed;

  CapturingResponse(HttpServletResponse response) {
    super(response);
  }

  /** The complete response the application produced. */
  StoredResponse toStoredResponse() {
    if (writer != null) {
      writer.flush();
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    String type = effectiveContentType();
    if (type != null) {
      out.put("Content-Type", List.of(type));
    }
    if (locale != null && !headers.containsKey("content-language")) {
      out.put("Content-Language", List.of(locale.toLanguageTag()));
    }
    headers.values().forEach(e -> out.put(e.getKey(), List.copyOf(e.getValue())));
    return StoredResponse.of(status, out, body.toByteArray());
  }

  private String effectiveContentType() {
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
  public void setHeader(String name, String value) {
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
  public void addHeader(String name, String value) {
    if (committed || name == null || value == null) {
      return;
    }
    if (special(name, value)) {
      return;
    }
    headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> Map.entry(name, new ArrayList<>())).getValue()
        .add(value);
  }

  /** Content-Type and Content-Length set as headers go through their own methods, as in the container. */
  private boolean special(String name, String value) {
    if (name.equalsIgnoreCase("Content-Type")) {
      setContentType(value);
      return true;
    }
    return name.equalsIgnoreCase("Content-Length"); // the filter sets the real length when it writes
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
    return name.equalsIgnoreCase("Content-Type") ? contentType != null
        : headers.containsKey(name.toLowerCase(Locale.ROOT));
  }

  @Override
  public String getHeader(String name) {
    if (name.equalsIgnoreCase("Content-Type")) {
      return effectiveContentType();
    }
    Map.Entry<String, List<String>> e = headers.get(name.toLowerCase(Locale.ROOT));
    return e == null || e.getValue().isEmpty() ? null : e.getValue().get(0);
  }

  @Override
  public Collection<String> getHeaders(String name) {
    if (name.equalsIgnoreCase("Content-Type")) {
      return contentType == null ? List.of() : List.of(effectiveContentType());
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
    StringBuilder sb = new StringBuilder(cookie.getName()).append('=')
        .append(cookie.getValue() == null ? "" : cookie.getValue());
    cookie.getAttributes().forEach((name, value) -> {
      sb.append("; ").append(name);
      if (value != null && !value.isEmpty()) {
        sb.append('=').append(value);
      }
    });
    addHeader("Set-Cookie", sb.toString());
  }

  // ---- content type, encoding, length, locale

  @Override
  public void setContentType(String type) {
    if (!committed) {
      contentType = type;
    }
  }

  @Override
  public String getContentType() {
    return effectiveContentType();
  }

  @Override
  public void setCharacterEncoding(String charset) {
    if (!committed && writer == null) {
      characterEncoding = charset;
    }
  }

  @Override
  public String getCharacterEncoding() {
    if (characterEncoding != null) {
      return characterEncoding;
    }
    if (contentType != null) {
      int at = contentType.toLowerCase(Locale.ROOT).indexOf("charset=");
      if (at >= 0) {
        return contentType.substring(at + 8).replace("\"", "").split(";")[0].trim();
      }
    }
    return StandardCharsets.ISO_8859_1.name();
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
  public void setLocale(Locale loc) {
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
    if (writer != null) {
      throw new IllegalStateException("getWriter() was already called");
    }
    if (stream == null) {
      stream = new ServletOutputStream() {
        @Override
        public void write(int b) throws IOException {
          sink.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          sink.write(b, off, len);
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
          throw new IllegalStateException(BufferedBodyRequest.ASYNC_REFUSED);
        }
      };
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() throws UnsupportedEncodingException {
    if (stream != null) {
      throw new IllegalStateException("getOutputStream() was already called");
    }
    if (writer == null) {
      Charset charset;
      try {
        charset = Charset.forName(getCharacterEncoding());
      } catch (IllegalArgumentException e) {
        throw new UnsupportedEncodingException(getCharacterEncoding());
      }
      if (characterEncoding == null) {
        characterEncoding = charset.name(); // as the container does: the writer's charset goes into Content-Type
      }
      writer = new PrintWriter(new OutputStreamWriter(sink, charset));
    }
    return writer;
  }

  @Override
  public void flushBuffer() {
    if (writer != null) {
      writer.flush();
    }
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
    if (writer != null) {
      writer.flush();
    }
    body.reset();
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
  public void sendError(int sc, String msg) {
    if (committed) {
      throw new IllegalStateException("the response is committed");
    }
    reset();
    status = sc;
    StringBuilder json = new StringBuilder("{\"type\":\"about:blank\",\"title\":");
    quote(json, reason(sc));
    json.append(",\"status\":").append(sc);
    if (msg != null && !msg.isEmpty()) {
      json.append(",\"detail\":");
      quote(json, msg);
    }
    json.append('}');
    contentType = "application/problem+json";
    body.writeBytes(json.toString().getBytes(StandardCharsets.UTF_8));
    closed = true;
    committed = true;
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
    closed = true;
    committed = true;
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7F) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }

  private static String reason(int sc) {
    switch (sc) {
      case 400: return "Bad Request";
      case 401: return "Unauthorized";
      case 402: return "Payment Required";
      case 403: return "Forbidden";
      case 404: return "Not Found";
      case 405: return "Method Not Allowed";
      case 409: return "Conflict";
      case 410: return "Gone";
      case 412: return "Precondition Failed";
      case 413: return "Content Too Large";
      case 415: return "Unsupported Media Type";
      case 422: return "Unprocessable Content";
      case 429: return "Too Many Requests";
      case 500: return "Internal Server Error";
      case 501: return "Not Implemented";
      case 502: return "Bad Gateway";
      case 503: return "Service Unavailable";
      case 504: return "Gateway Timeout";
      default: return sc >= 500 ? "Server Error" : sc >= 400 ? "Client Error" : "Status " + sc;
    }
  }
}
