package dev.idempotency.servlet;

import dev.idempotency.http.HttpRequestView;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A servlet request as the handler sees it. {@link #path()} is the container's decoded and
 * normalised path ({@code getServletPath() + getPathInfo()}: percent-decoded, path parameters
 * removed, dot segments resolved), which endpoint rules match; {@link #rawPath()} is the request
 * URI without the context path, as sent, which the fingerprint covers.
 */
final class ServletRequestView implements HttpRequestView {
  private final HttpServletRequest request;

  ServletRequestView(HttpServletRequest request) {
    this.request = request;
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String path() {
    String servletPath = request.getServletPath();
    String pathInfo = request.getPathInfo();
    String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
    return path.isEmpty() ? "/" : path;
  }

  @Override
  public String rawPath() {
    String uri = request.getRequestURI();
    String context = request.getContextPath();
    String path =
        context != null && !context.isEmpty() && uri.startsWith(context)
            ? uri.substring(context.length())
            : uri;
    return path.isEmpty() ? "/" : path;
  }

  @Override
  public Optional<String> query() {
    return Optional.ofNullable(request.getQueryString());
  }

  @Override
  public String basePath() {
    return request.getContextPath() == null ? "" : request.getContextPath();
  }

  @Override
  public List<String> headers(String name) {
    Enumeration<String> values = request.getHeaders(name);
    return values == null ? List.of() : Collections.list(values);
  }

  @Override
  public Optional<String> principalName() {
    Principal principal = request.getUserPrincipal();
    return principal == null ? Optional.empty() : Optional.ofNullable(principal.getName());
  }

  @Override
  public OptionalLong contentLength() {
    long length = request.getContentLengthLong();
    return length < 0 ? OptionalLong.empty() : OptionalLong.of(length);
  }

  @Override
  public InputStream body() throws IOException {
    return request.getInputStream();
  }
}
