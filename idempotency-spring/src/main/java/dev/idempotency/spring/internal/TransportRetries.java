package dev.idempotency.spring.internal;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.AbstractClientHttpRequestFactoryWrapper;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.support.HttpRequestWrapper;

/**
 * The check that the transport under the {@code RestClient} interceptor re-sends nothing on its
 * own. A transport's retries run below the interceptor: they re-send what the policy would not (a
 * PUT whose answer was lost, a request answered 503), and no attempt count, log line or retry
 * budget sees them. So the interceptor runs only over a transport known to have none, or to have
 * them switched off, and refuses any other before the first request is sent, saying what to do.
 *
 * <p>Known: Spring's factories over the JDK client (unless {@code
 * jdk.httpclient.enableAllMethodRetry} is set), HttpClient 5 (only without its retry exec), Jetty
 * (no retries of its own), Reactor Netty (only with {@code disableRetry(true)}) and
 * HttpURLConnection (measured: it re-sends neither a PUT with a body nor a bodiless DELETE lost on
 * a kept-alive connection). Any other factory is refused unless the application declared its type
 * trusted.
 *
 * <p>Spring hands an interceptor neither its factory nor its client, so the check reads them where
 * Spring keeps them: the factory in the {@code InterceptingClientHttpRequest} the interceptor is
 * given, Reactor Netty's client in its factory's field, HttpClient 5's chain of handlers in its
 * client. Each is read by name, so this module needs none of those clients; what it cannot read, it
 * refuses. A factory found fit is remembered (weakly), so the reading happens once per factory.
 */
public final class TransportRetries {
  private static final String SPRING = "org.springframework.http.client.";
  private static final String HC5 = "org.apache.hc.client5.http.impl.classic.";

  private final List<Class<?>> trusted;
  private final Set<ClientHttpRequestFactory> fit =
      Collections.newSetFromMap(
          Collections.synchronizedMap(new WeakHashMap<ClientHttpRequestFactory, Boolean>()));

  /**
   * A check that lets the given factory types through unread.
   *
   * @param trusted factory types the application declared to re-send nothing on their own; {@code
   *     ClientHttpRequestFactory} itself trusts every factory, and a request whose factory cannot
   *     be found
   */
  public TransportRetries(List<Class<?>> trusted) {
    this.trusted = List.copyOf(trusted);
  }

  /**
   * Refuses a transport under the interceptor that may re-send on its own.
   *
   * @param request the request the interceptor was given
   * @throws IllegalStateException naming the transport, what it re-sends and how to switch it off
   */
  public void requireNoneUnder(HttpRequest request) {
    ClientHttpRequestFactory factory = factoryUnder(request);
    if (factory != null && fit.contains(factory)) {
      return;
    }
    String problem = problem(factory);
    if (problem != null) {
      throw new IllegalStateException(problem);
    }
    if (factory != null) {
      fit.add(factory);
    }
  }

  private @Nullable String problem(@Nullable ClientHttpRequestFactory factory) {
    if (factory == null) {
      return trusted.contains(ClientHttpRequestFactory.class)
          ? null
          : "IdempotentRestClient could not find the request factory under it (it reads it from"
              + " Spring's InterceptingClientHttpRequest), so it cannot check that the transport"
              + " re-sends nothing on its own. If yours re-sends nothing itself, declare it:"
              + " IdempotentRestClient.builder().trustRequestFactory(ClientHttpRequestFactory.class).";
    }
    for (Class<?> type : trusted) {
      if (type.isInstance(factory)) {
        return null;
      }
    }
    Class<?> known = knownSpringFactory(factory.getClass());
    return switch (known == null ? "" : known.getSimpleName()) {
      case "JdkClientHttpRequestFactory" -> jdk();
      case "HttpComponentsClientHttpRequestFactory" -> httpComponents(requireKnown(known), factory);
      case "ReactorClientHttpRequestFactory" -> reactorNetty(requireKnown(known), factory);
      case "JettyClientHttpRequestFactory", "SimpleClientHttpRequestFactory" -> null;
      default ->
          "IdempotentRestClient cannot tell whether the request factory "
              + factory.getClass().getName()
              + " re-sends requests on its own, below the interceptor, where no attempt count, log"
              + " or retry budget sees them (it knows Spring's factories over the JDK client,"
              + " HttpClient 5, Jetty, Reactor Netty and HttpURLConnection). Use one of those, or,"
              + " if this one re-sends nothing itself, declare it:"
              + " IdempotentRestClient.builder().trustRequestFactory("
              + factory.getClass().getSimpleName()
              + ".class).";
    };
  }

  private static @Nullable String jdk() {
    String property = "jdk.httpclient.enableAllMethodRetry";
    if (!Boolean.parseBoolean(System.getProperty(property))) {
      // as it ships, the JDK re-sends only a request that never left (a failed connect) and a GET
      // or HEAD on a pooled connection closed before any answer
      return null;
    }
    return "IdempotentRestClient refuses JdkClientHttpRequestFactory while the system property "
        + property
        + " is set: it makes the JDK's HttpClient re-send any request, a POST or a PUT included,"
        + " once when its connection closes before an answer, below the interceptor, where no"
        + " attempt count, log or retry budget sees it. Unset it (the JDK reads it once, at"
        + " start-up).";
  }

  private static @Nullable String httpComponents(Class<?> type, ClientHttpRequestFactory factory) {
    String fix =
        " Give the RestClient a factory over a client without them:"
            + " RestClient.builder().requestFactory(new HttpComponentsClientHttpRequestFactory("
            + "HttpClients.custom().disableAutomaticRetries().build())).";
    Object client;
    try {
      client = type.getMethod("getHttpClient").invoke(factory);
    } catch (ReflectiveOperationException | RuntimeException e) {
      client = null;
    }
    @Nullable List<String> handlers = client == null ? null : execChainOf(client);
    if (handlers == null) {
      return "IdempotentRestClient cannot tell whether the HttpClient 5 under"
          + " HttpComponentsClientHttpRequestFactory ("
          + (client == null ? "none" : client.getClass().getName())
          + ") re-sends requests on its own: HttpClient 5 as it ships does (it re-sends a PUT or"
          + " DELETE whose answer was lost, and any request answered 429 or 503), below the"
          + " interceptor, where no attempt count, log or retry budget sees it."
          + fix;
    }
    // HttpRequestRetryExec since 5.0; RetryExec in its betas
    if (handlers.contains(HC5 + "HttpRequestRetryExec") || handlers.contains(HC5 + "RetryExec")) {
      return "IdempotentRestClient refuses HttpComponentsClientHttpRequestFactory over an HttpClient"
          + " 5 with its own retries on (HttpClients.createDefault() and createSystem(), a builder"
          + " without disableAutomaticRetries(), and the factory's own default client have them;"
          + " RestClient.builder() picks this factory by itself when HttpClient 5 is on the class"
          + " path). They run below the interceptor: they re-send a PUT or DELETE whose answer was"
          + " lost, and any request answered 429 or 503, where no attempt count, log or retry"
          + " budget sees it, and a PUT without a key runs twice."
          + fix;
    }
    if (handlers.contains("dev.idempotency.client.httpclient5.IdempotentRetryExec")) {
      return "IdempotentRestClient refuses an HttpClient 5 that has IdempotentRetryExec installed:"
          + " two retry layers multiply each other's attempts. Keep one: build the client with"
          + " HttpClients.custom().disableAutomaticRetries() for the RestClient interceptor, or"
          + " use the client without the interceptor.";
    }
    return null;
  }

  /**
   * The class names of the handlers in an HttpClient 5 classic client's exec chain, or {@code null}
   * when the client is of another kind or the chain cannot be read. A minimal client has no chain
   * (and no retries).
   */
  private static @Nullable List<String> execChainOf(Object client) {
    String kind = client.getClass().getName();
    if (kind.equals(HC5 + "MinimalHttpClient")) {
      return List.of();
    }
    if (!kind.equals(HC5 + "InternalHttpClient")) {
      return null;
    }
    Object element = field(client, "execChain");
    List<String> handlers = new ArrayList<>();
    for (int i = 0; element != null && i < 64; i++) {
      Object handler = field(element, "handler");
      if (handler != null) {
        handlers.add(handler.getClass().getName());
      }
      element = field(element, "next");
    }
    return handlers.isEmpty() ? null : handlers;
  }

  private static @Nullable String reactorNetty(Class<?> type, ClientHttpRequestFactory factory) {
    String fix =
        " Give the RestClient a factory over a client with it off: new"
            + " ReactorClientHttpRequestFactory(HttpClient.create().disableRetry(true)).";
    Object client = field(type, factory, "httpClient");
    Boolean disabled = null;
    if (client != null) {
      try {
        ClassLoader loader = client.getClass().getClassLoader();
        Object config =
            Class.forName("reactor.netty.http.client.HttpClient", false, loader)
                .getMethod("configuration")
                .invoke(client);
        disabled =
            (Boolean)
                Class.forName("reactor.netty.http.client.HttpClientConfig", false, loader)
                    .getMethod("isRetryDisabled")
                    .invoke(config);
      } catch (ReflectiveOperationException | RuntimeException e) {
        disabled = null;
      }
    }
    if (Boolean.TRUE.equals(disabled)) {
      return null;
    }
    return "IdempotentRestClient refuses ReactorClientHttpRequestFactory over a Reactor Netty"
        + " HttpClient "
        + (disabled == null
            ? "whose retry setting it cannot read (a factory not started yet has no client)"
            : "with its own retry on, as HttpClient.create() and the factory's default client"
                + " have it")
        + ": Reactor Netty re-sends a request once when its connection closes at the wrong"
        + " moment, below the interceptor, where no attempt count, log or retry budget sees it."
        + fix;
  }

  private static Class<?> requireKnown(@Nullable Class<?> known) {
    return java.util.Objects.requireNonNull(known, "a named factory was found");
  }

  /**
   * The Spring factory class that {@code type} is or extends, among the ones this check knows, or
   * {@code null}.
   */
  private static @Nullable Class<?> knownSpringFactory(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().startsWith(SPRING) && c.getName().endsWith("ClientHttpRequestFactory")) {
        return c;
      }
    }
    return null;
  }

  /** The factory the request will be sent through, wrappers unwrapped; {@code null} if unknown. */
  static @Nullable ClientHttpRequestFactory factoryUnder(HttpRequest request) {
    HttpRequest r = request;
    while (r instanceof HttpRequestWrapper wrapper) {
      r = wrapper.getRequest();
    }
    Class<?> type = r.getClass();
    if (!type.getName().equals(SPRING + "InterceptingClientHttpRequest")) {
      return null;
    }
    Object factory = field(type, r, "requestFactory");
    while (factory instanceof AbstractClientHttpRequestFactoryWrapper wrapper) {
      factory = wrapper.getDelegate();
    }
    return factory instanceof ClientHttpRequestFactory f ? f : null;
  }

  private static @Nullable Object field(Object target, String name) {
    for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (f.getName().equals(name)) {
          return field(c, target, name);
        }
      }
    }
    return null;
  }

  private static @Nullable Object field(Class<?> declaring, Object target, String name) {
    try {
      Field field = declaring.getDeclaredField(name);
      field.setAccessible(true);
      return field.get(target);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // not there in this version, or not open to this module: refused as unknown
    }
  }
}
