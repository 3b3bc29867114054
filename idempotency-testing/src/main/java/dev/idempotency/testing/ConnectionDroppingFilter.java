package dev.idempotency.testing;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;

/**
 * Loses responses inside Jetty, on a keep-alive connection: wraps a filter (the idempotency filter
 * under test) and, while armed, closes the TCP connection once the wrapped filter and everything
 * behind it have run, before the buffered response is sent. The client sees its kept-alive
 * connection end without an answer after the server processed the request: the case in which HTTP
 * clients re-send on a fresh connection. {@link FaultInjectingProxy} cannot make it, as it closes
 * every connection after one request.
 */
public final class ConnectionDroppingFilter implements Filter {
  private final Filter delegate;
  private final AtomicInteger drops = new AtomicInteger();

  /**
   * Wraps {@code delegate}, disarmed.
   *
   * @param delegate the filter whose responses to lose
   */
  public ConnectionDroppingFilter(Filter delegate) {
    this.delegate = delegate;
  }

  /**
   * Loses the responses of the next {@code count} requests.
   *
   * @param count how many
   */
  public void dropNext(int count) {
    drops.set(count);
  }

  @Override
  public void init(FilterConfig config) throws ServletException {
    delegate.init(config);
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (drops.getAndUpdate(n -> Math.max(0, n - 1)) <= 0) {
      delegate.doFilter(request, response, chain);
      return;
    }
    // nothing the filter writes (or flushes) may reach the client: it would commit the response
    delegate.doFilter(request, new Unsent((HttpServletResponse) response), chain);
    ServletContextRequest.getServletContextRequest(request)
        .getConnectionMetaData()
        .getConnection()
        .getEndPoint()
        .close();
  }

  /** A response whose body and flushes go nowhere. */
  private static final class Unsent extends HttpServletResponseWrapper {
    private final ServletOutputStream discarding =
        new ServletOutputStream() {
          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public void setWriteListener(WriteListener listener) {}

          @Override
          public void write(int b) {}

          @Override
          public void write(byte[] b, int off, int len) {}
        };

    Unsent(HttpServletResponse response) {
      super(response);
    }

    @Override
    public ServletOutputStream getOutputStream() {
      return discarding;
    }

    @Override
    public PrintWriter getWriter() {
      return new PrintWriter(Writer.nullWriter());
    }

    @Override
    public void flushBuffer() {}
  }

  @Override
  public void destroy() {
    delegate.destroy();
  }
}
