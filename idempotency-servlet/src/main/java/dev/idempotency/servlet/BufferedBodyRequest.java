package dev.idempotency.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The guarded request as the application sees it: the body the filter already read (and
 * fingerprinted) served again from memory, with form parameters parsed from it; async refused with
 * a message.
 */
final class BufferedBodyRequest extends HttpServletRequestWrapper {
  static final String ASYNC_REFUSED =
      "IdempotencyFilter does not support async servlets on requests it guards:"
          + " a response completed on another thread cannot be captured and stored under the idempotency key's fence."
          + " Serve this endpoint synchronously, or exclude it from the filter's endpoint rules.";

  private final byte[] body;
  private boolean streamUsed;
  private boolean readerUsed;
  private @Nullable Map<String, String[]> parameters;

  BufferedBodyRequest(HttpServletRequest request, byte[] body) {
    super(request);
    this.body = body;
  }

  @Override
  public ServletInputStream getInputStream() {
    if (readerUsed) {
      throw new IllegalStateException("getReader() was already called");
    }
    streamUsed = true;
    ByteArrayInputStream in = new ByteArrayInputStream(body);
    return new ServletInputStream() {
      @Override
      public int read() {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        return in.read(b, off, len);
      }

      @Override
      public boolean isFinished() {
        return in.available() == 0;
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setReadListener(ReadListener listener) {
        throw new IllegalStateException(ASYNC_REFUSED);
      }
    };
  }

  @Override
  public BufferedReader getReader() throws UnsupportedEncodingException {
    if (streamUsed) {
      throw new IllegalStateException("getInputStream() was already called");
    }
    readerUsed = true;
    return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset()));
  }

  private Charset charset() throws UnsupportedEncodingException {
    String enc = getCharacterEncoding();
    try {
      return enc == null ? StandardCharsets.ISO_8859_1 : Charset.forName(enc);
    } catch (IllegalArgumentException e) {
      throw new UnsupportedEncodingException(enc);
    }
  }

  @Override
  public int getContentLength() {
    return body.length;
  }

  @Override
  public long getContentLengthLong() {
    return body.length;
  }

  @Override
  public @Nullable String getParameter(String name) {
    String[] values = parameters().get(name);
    return values == null ? null : values[0];
  }

  @Override
  public Map<String, String[]> getParameterMap() {
    return parameters();
  }

  @Override
  public Enumeration<String> getParameterNames() {
    return Collections.enumeration(parameters().keySet());
  }

  @Override
  public String @Nullable [] getParameterValues(String name) {
    String[] values = parameters().get(name);
    return values == null ? null : values.clone();
  }

  /**
   * Query parameters, then form parameters from the buffered body (the container's parser saw no
   * body).
   */
  private Map<String, String[]> parameters() {
    if (parameters == null) {
      Map<String, List<String>> collected = new LinkedHashMap<>();
      Charset charset;
      try {
        charset =
            getCharacterEncoding() == null
                ? StandardCharsets.UTF_8
                : Charset.forName(getCharacterEncoding());
      } catch (IllegalArgumentException e) {
        charset = StandardCharsets.UTF_8;
      }
      parse(getQueryString(), StandardCharsets.UTF_8, collected);
      String type = getContentType();
      if (type != null
          && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
        parse(new String(body, StandardCharsets.ISO_8859_1), charset, collected);
      }
      Map<String, String[]> result = new LinkedHashMap<>();
      collected.forEach((k, v) -> result.put(k, v.toArray(new String[0])));
      parameters = Collections.unmodifiableMap(result);
    }
    return parameters;
  }

  private static void parse(
      @Nullable String encoded, Charset charset, Map<String, List<String>> into) {
    if (encoded == null || encoded.isEmpty()) {
      return;
    }
    for (String pair : encoded.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        into.computeIfAbsent(URLDecoder.decode(name, charset), k -> new ArrayList<>())
            .add(URLDecoder.decode(value, charset));
      } catch (IllegalArgumentException malformed) {
        into.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
      }
    }
  }

  @Override
  public boolean isAsyncSupported() {
    return false;
  }

  @Override
  public AsyncContext startAsync() {
    throw new IllegalStateException(ASYNC_REFUSED);
  }

  @Override
  public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
    throw new IllegalStateException(ASYNC_REFUSED);
  }
}
