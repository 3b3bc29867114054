package dev.idempotency.servlet;

import dev.idempotency.Execution;
import dev.idempotency.StoredResponse;
import dev.idempotency.http.ApplicationFailedException;
import dev.idempotency.http.HttpResult;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.TransactionalDownstream;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The idempotency-key contract as a servlet filter. Register it in front of the application, after
 * authentication (the default scope is the authenticated principal), for the {@code REQUEST}
 * dispatcher:
 *
 * <pre>{@code
 * IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
 * IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
 * servletContext.addFilter("idempotency", new IdempotencyFilter(http))
 *     .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
 * }</pre>
 *
 * <p>For a guarded request the filter reads the body (up to the handler's limit), hands the
 * application a request whose input stream, reader and form parameters serve those same bytes, and
 * a response that captures everything (status, headers, cookies, body; {@code sendError} becomes an
 * RFC 9457 problem body so that the stored bytes are the sent bytes; {@code sendRedirect} a
 * redirect with {@code Location}). Only once the engine has stored the result under the fence does
 * the filter write it to the client. On an {@link
 * dev.idempotency.http.EndpointRule#inOneTransaction() endpoint rule in one transaction} the
 * application runs inside the transaction that holds the claim ({@link #TRANSACTION_ATTRIBUTE}),
 * and the response is written once its statements and the stored response committed together. An
 * exception thrown by the application releases the key and is rethrown unchanged, so the container
 * answers as it would without the filter. Requests the handler does not guard pass through
 * untouched.
 *
 * <p>Limitations: async servlets are refused on guarded requests ({@code startAsync} throws an
 * {@link IllegalStateException} that says so: a response completed on another thread cannot be
 * captured under the fence); multipart parts are not re-exposed ({@code getParts} fails, since the
 * body was consumed); the error pages of the application are not applied to {@code sendError} on
 * guarded requests; the response is buffered in memory whole.
 *
 * <p>Without a constructor argument (declared in {@code web.xml}), the filter takes its handler
 * from the servlet context attribute {@link #HANDLER_ATTRIBUTE}. Thread-safe.
 */
public final class IdempotencyFilter implements Filter {
  /**
   * The request attribute under which the application finds the claimed request's {@link Execution}
   * on a guarded request ({@code null} elsewhere), for a request of several steps: {@code
   * resumeFrom()} says where a retry that took over resumes, {@code checkpoint} (or {@code
   * inPhase(Connection.class, …)}, with the step's writes) commits a step with its recovery point,
   * {@code downstreamKey(purpose)} gives the key for a call out that is the same on every retry,
   * and {@code leaseLost()} says another owner took the request over. Removed when the application
   * returns.
   */
  public static final String EXECUTION_ATTRIBUTE = Execution.class.getName();

  /**
   * The request attribute under which the application finds the open transaction of a request an
   * {@link dev.idempotency.http.EndpointRule#inOneTransaction() endpoint rule in one transaction}
   * runs ({@code null} elsewhere): the engine's store's handle, for the JDBC store the {@code
   * java.sql.Connection} that holds the request's claim, auto-commit off. The application runs its
   * statements on it and neither commits, rolls back nor closes it: they commit with the claim and
   * the stored response once it returns, and only then does the filter send the response; if it
   * throws, they roll back with the claim. {@link #EXECUTION_ATTRIBUTE} is not set on such a
   * request (one transaction has no steps to checkpoint). Removed when the application returns.
   */
  public static final String TRANSACTION_ATTRIBUTE =
      IdempotencyFilter.class.getName() + ".transaction";

  /**
   * The servlet context attribute holding the {@link IdempotencyHttp} of a filter declared without
   * one.
   */
  public static final String HANDLER_ATTRIBUTE = IdempotencyHttp.class.getName();

  private volatile @Nullable IdempotencyHttp http;

  /**
   * A view of {@code dataSource} for code written against a {@code DataSource} (a pool handed to a
   * DAO, jOOQ, MyBatis): on a thread that runs a request in one transaction, {@code
   * getConnection()} returns that request's connection, the one that holds its key, so that the
   * code's writes commit with the key and the stored response, or roll back with them; anywhere
   * else, a connection of {@code dataSource}. Closing the request's connection only ends that use
   * of it; {@code commit()}, {@code rollback()} and {@code setAutoCommit(true)} on it throw an
   * {@code SQLException}, since the transaction ends with the request. Give the application this
   * view of the pool the JDBC store uses: a connection of another database must not receive writes
   * meant for it.
   *
   * @param dataSource the pool the application's code uses outside such requests
   * @return the view; thread-safe
   */
  public static DataSource transactionAware(DataSource dataSource) {
    return RequestTransaction.view(dataSource);
  }

  /**
   * A filter that takes its handler from the context attribute {@link #HANDLER_ATTRIBUTE} at {@link
   * #init}.
   */
  public IdempotencyFilter() {}

  /** A filter over {@code http}. */
  public IdempotencyFilter(IdempotencyHttp http) {
    this.http = Objects.requireNonNull(http, "http");
  }

  @Override
  public void init(FilterConfig config) throws ServletException {
    if (http == null) {
      Object attribute = config.getServletContext().getAttribute(HANDLER_ATTRIBUTE);
      if (!(attribute instanceof IdempotencyHttp handler)) {
        throw new ServletException(
            "IdempotencyFilter \""
                + config.getFilterName()
                + "\" has no handler: construct"
                + " it with an IdempotencyHttp, or set the servlet context attribute "
                + HANDLER_ATTRIBUTE
                + " to one before the filter starts");
      }
      http = handler;
    }
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (!(req instanceof HttpServletRequest request)
        || !(res instanceof HttpServletResponse response)
        || request.getDispatcherType() != DispatcherType.REQUEST) {
      chain.doFilter(req, res);
      return;
    }
    IdempotencyHttp handler = http;
    if (handler == null) {
      throw new ServletException(
          "IdempotencyFilter was not initialised: init(FilterConfig) did not run");
    }
    HttpResult result;
    try {
      result =
          handler.handle(
              new ServletRequestView(request),
              new TransactionalDownstream() {
                @Override
                public StoredResponse run(byte[] body, Execution execution) throws Exception {
                  return captured(request, response, chain, body, EXECUTION_ATTRIBUTE, execution);
                }

                @Override
                public StoredResponse runInTransaction(byte[] body, Object transaction)
                    throws Exception {
                  return captured(
                      request, response, chain, body, TRANSACTION_ATTRIBUTE, transaction);
                }
              });
    } catch (ApplicationFailedException e) {
      throw rethrow(
          Objects.requireNonNull(
              e.getCause(), "an ApplicationFailedException carries what the application threw"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServletException("interrupted while waiting for an in-flight idempotency key", e);
    }
    if (result instanceof HttpResult.Respond respond) {
      if (bodyLeftUnread(request, respond)) {
        // A container may close a connection whose request body was not read once the response is
        // sent (Jetty does; Tomcat reads and discards up to its maxSwallowSize and keeps it), but
        // cannot say so in a response the filter commits by writing it whole; a client that reused
        // the connection would have its next request fail. The header tells it to open a new one,
        // at the cost of a reconnect where the container kept it.
        response.setHeader("Connection", "close");
      }
      write(respond.response(), response);
    } else {
      chain.doFilter(req, res);
    }
  }

  /**
   * Runs the rest of the chain on the buffered body with {@code handle} as the request attribute
   * {@code attribute}, and returns everything it wrote, captured. Called once per request: the HTTP
   * layer never runs the chain twice (a container's filter chain is not re-entrant).
   */
  private static StoredResponse captured(
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain,
      byte[] body,
      String attribute,
      Object handle)
      throws IOException, ServletException {
    CapturingResponse captured = new CapturingResponse(response);
    BufferedBodyRequest buffered = new BufferedBodyRequest(request, body);
    buffered.setAttribute(attribute, handle);
    boolean transaction = handle instanceof Connection;
    if (transaction) {
      RequestTransaction.begin((Connection) handle);
    }
    try {
      chain.doFilter(buffered, captured);
    } finally {
      // the execution and the transaction are the claim's: neither may outlive the run, in the
      // request or anywhere else
      buffered.removeAttribute(attribute);
      if (transaction) {
        RequestTransaction.end();
      }
    }
    return captured.toStoredResponse();
  }

  /**
   * Whether {@code respond} answers an HTTP/1 request whose body is left unread. A refusal or a
   * status answer may come before the handler reads the body (a missing or invalid key, no caller,
   * a declared length over the limit), so the request's stream says whether it was read; every
   * other response comes after the handler read the whole body. HTTP/2 ends a stream, never the
   * connection, for an unread body.
   */
  private static boolean bodyLeftUnread(HttpServletRequest request, HttpResult.Respond respond)
      throws IOException {
    HttpResult.Disposition disposition = respond.disposition();
    boolean mayPrecedeTheBodyRead =
        disposition == HttpResult.Disposition.REJECTED
            || disposition == HttpResult.Disposition.STATUS;
    if (!mayPrecedeTheBodyRead || !request.getProtocol().startsWith("HTTP/1.")) {
      return false;
    }
    try {
      return !request.getInputStream().isFinished();
    } catch (IllegalStateException e) {
      return false; // a filter in front read the body through getReader()
    }
  }

  /** Rethrows what the application threw, as itself whenever the filter's signature allows. */
  private static ServletException rethrow(Throwable cause) throws IOException {
    if (cause instanceof IOException io) {
      throw io;
    }
    if (cause instanceof ServletException se) {
      return se;
    }
    if (cause instanceof RuntimeException re) {
      throw re;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new ServletException(cause);
  }

  private static void write(StoredResponse r, HttpServletResponse response) throws IOException {
    response.setStatus(r.status());
    for (Map.Entry<String, List<String>> header : r.headers().entrySet()) {
      for (String value : header.getValue()) {
        if (header.getKey().equalsIgnoreCase("Content-Type")) {
          response.setContentType(value);
        } else {
          response.addHeader(header.getKey(), value);
        }
      }
    }
    response.setContentLength(r.bodyLength());
    if (r.bodyLength() > 0) {
      OutputStream out = response.getOutputStream();
      out.write(r.body());
      out.flush();
    }
  }
}
