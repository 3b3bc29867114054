package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.testing.ConnectionDroppingFilter;
import dev.idempotency.testing.Fault;
import dev.idempotency.testing.ProxiedConfirmApp;
import dev.idempotency.testing.RecordingLogger;
import dev.idempotency.testing.ScriptedFaults;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.client.BufferingClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.JettyClientHttpRequestFactory;
import org.springframework.http.client.ReactorClientHttpRequestFactory;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * {@link IdempotentRestClient} over every transport {@code RestClient.builder()} can pick by itself
 * (HttpClient 5, Jetty, Reactor Netty, the JDK's client), counted at the wire by the proxy in front
 * of the real filter. A transport's own retries run below the interceptor, unlogged and unpaid by
 * the budget, and re-send what the policy would not: under the interceptor they must be off, or the
 * interceptor refuses the transport before anything is sent, saying what to do.
 */
class RestClientTransportsTest {
  static final String PATH = "/accounts/7/limit";

  final List<Duration> sleeps = new ArrayList<>();
  final List<AutoCloseable> toClose = new ArrayList<>();
  ProxiedConfirmApp server;
  ConnectionDroppingFilter dropping;

  @BeforeEach
  void start() throws Exception {
    IdempotencyEngine engine =
        IdempotencyEngine.builder(new InMemoryKeyStore())
            .config(IdempotencyConfig.builder().lease(Duration.ofSeconds(5)).build())
            .build();
    dropping =
        new ConnectionDroppingFilter(
            new IdempotencyFilter(IdempotencyHttp.builder(engine).build()));
    server = ProxiedConfirmApp.start(dropping, engine);
    server.proxy.retryAfterSeconds(0, 0);
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  IdempotentRestClient interceptor() {
    return IdempotentRestClient.builder()
        .policy(
            RetryPolicy.builder()
                .environment(
                    RetryEnvironment.system()
                        .withSleeper(sleeps::add)
                        .withLogger(new RecordingLogger()))
                .build())
        .build();
  }

  RestClient client(ClientHttpRequestFactory factory) {
    return RestClient.builder().requestFactory(factory).requestInterceptor(interceptor()).build();
  }

  /** An unkeyed PUT (not idempotent by default): sent once, whatever happens to its answer. */
  Throwable put(RestClient client) {
    return put(client, server.uri(PATH));
  }

  Throwable put(RestClient client, URI uri) {
    return catchThrowable(
        () ->
            client
                .put()
                .uri(uri)
                .header("Authorization", "Bearer alice")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"limit\":500}")
                .retrieve()
                .toBodilessEntity());
  }

  /** The transports with their own retries off (or without any), as each is set up for it. */
  static Stream<Arguments> transportsWithoutRetriesOfTheirOwn() {
    return Stream.of(
        Arguments.of(
            "JDK HttpClient",
            (Supplier<ClientHttpRequestFactory>)
                () -> new JdkClientHttpRequestFactory(java.net.http.HttpClient.newHttpClient())),
        Arguments.of(
            "HttpClient 5, disableAutomaticRetries()",
            (Supplier<ClientHttpRequestFactory>)
                () ->
                    new HttpComponentsClientHttpRequestFactory(
                        HttpClients.custom().disableAutomaticRetries().build())),
        Arguments.of(
            "Jetty", (Supplier<ClientHttpRequestFactory>) JettyClientHttpRequestFactory::new),
        Arguments.of(
            "Reactor Netty, disableRetry(true)",
            (Supplier<ClientHttpRequestFactory>)
                () ->
                    new ReactorClientHttpRequestFactory(
                        reactor.netty.http.client.HttpClient.create().disableRetry(true))),
        Arguments.of(
            "HttpURLConnection (RestTemplate's default)",
            (Supplier<ClientHttpRequestFactory>) SimpleClientHttpRequestFactory::new));
  }

  /** The promise of docs/spring.md: a PUT without a key whose answer is lost is not re-sent. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("transportsWithoutRetriesOfTheirOwn")
  void anUnkeyedPutWhoseAnswerIsLostIsSentOnce(
      String transport, Supplier<ClientHttpRequestFactory> factory) {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    Throwable failure = put(client(factory.get()));

    assertThat(server.proxy.exchanges()).as("PUTs at the wire").hasSize(1);
    assertThat(failure)
        .isInstanceOf(ResourceAccessException.class)
        .cause()
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> assertThat(stop.reason()).isEqualTo(StopReason.NOT_RETRYABLE));
  }

  /**
   * The case in which HTTP clients re-send on their own: a kept-alive connection (opened by a first
   * request) ends without an answer after the server processed the PUT, then a bodiless DELETE.
   * Counted at Jetty.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("transportsWithoutRetriesOfTheirOwn")
  void anUnkeyedPutLostOnAKeptAliveConnectionIsSentOnce(
      String transport, Supplier<ClientHttpRequestFactory> factory) {
    RestClient client = client(factory.get());
    URI direct = URI.create("http://127.0.0.1:" + server.jetty.port() + PATH);
    put(client, direct); // opens the connection (the application answers a PUT 405)
    dropping.dropNext(1);

    Throwable failure = put(client, direct);

    assertThat(server.jetty.requests).as("the first PUT and the lost one, at Jetty").hasValue(2);
    assertThat(failure.getCause())
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> assertThat(stop.reason()).isEqualTo(StopReason.NOT_RETRYABLE));

    // a request without a body, which a client can re-send without replaying a stream
    put(client, direct);
    dropping.dropNext(1);
    Throwable lostDelete =
        catchThrowable(
            () ->
                client
                    .delete()
                    .uri(direct)
                    .header("Authorization", "Bearer alice")
                    .retrieve()
                    .toBodilessEntity());

    assertThat(server.jetty.requests).as("and a PUT and the lost DELETE").hasValue(4);
    assertThat(lostDelete).isInstanceOf(ResourceAccessException.class);
  }

  /** Every 503 is one attempt of the policy's, logged and paid for: no hidden re-send. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("transportsWithoutRetriesOfTheirOwn")
  void each503IsOneOfThePolicysAttempts(
      String transport, Supplier<ClientHttpRequestFactory> factory) {
    server.proxy.plan(new ScriptedFaults(Fault.ANSWER_503));

    Throwable failure = put(client(factory.get()));

    assertThat(failure.getCause())
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> {
              assertThat(stop.reason()).isEqualTo(StopReason.ATTEMPTS);
              assertThat(stop.attempts()).isEqualTo(3);
            });
    assertThat(server.proxy.exchanges()).as("requests at the wire").hasSize(3);
    assertThat(sleeps).hasSize(2);
  }

  /**
   * {@code RestClient.builder()} without a factory picks HttpClient 5 when it is on the class path,
   * as it is here, with its retries on: refused before anything is sent.
   */
  @Test
  void theDefaultFactoryOverHttpClient5IsRefusedBeforeAnythingIsSent() {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    Throwable failure = put(RestClient.builder().requestInterceptor(interceptor()).build());

    assertThat(server.proxy.exchanges()).as("PUTs at the wire").isEmpty();
    assertThat(failure)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("HttpComponentsClientHttpRequestFactory")
        .hasMessageContaining("disableAutomaticRetries()");
  }

  static Stream<Arguments> transportsWithRetriesOfTheirOwn() {
    return Stream.of(
        Arguments.of(
            "HttpClient 5 as it ships",
            (Supplier<ClientHttpRequestFactory>) HttpComponentsClientHttpRequestFactory::new,
            "disableAutomaticRetries()"),
        Arguments.of(
            "HttpClient 5 under a buffering wrapper",
            (Supplier<ClientHttpRequestFactory>)
                () ->
                    new BufferingClientHttpRequestFactory(
                        new HttpComponentsClientHttpRequestFactory(HttpClients.createDefault())),
            "disableAutomaticRetries()"),
        Arguments.of(
            "Reactor Netty as it ships",
            (Supplier<ClientHttpRequestFactory>) ReactorClientHttpRequestFactory::new,
            "disableRetry(true)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transportsWithRetriesOfTheirOwn")
  void aTransportThatRetriesOnItsOwnIsRefusedBeforeAnythingIsSent(
      String transport, Supplier<ClientHttpRequestFactory> factory, String whatToDo) {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    Throwable failure = put(client(factory.get()));

    assertThat(server.proxy.exchanges()).as("PUTs at the wire").isEmpty();
    assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessageContaining(whatToDo);
  }

  /**
   * The JDK's client re-sends any method after a lost connection when {@code
   * jdk.httpclient.enableAllMethodRetry} is set: refused then.
   */
  @Test
  void theJdkClientWithAllMethodRetryIsRefused() {
    String property = "jdk.httpclient.enableAllMethodRetry";
    System.setProperty(property, "true");
    try {
      Throwable failure =
          put(client(new JdkClientHttpRequestFactory(java.net.http.HttpClient.newHttpClient())));

      assertThat(server.proxy.exchanges()).as("PUTs at the wire").isEmpty();
      assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessageContaining(property);
    } finally {
      System.clearProperty(property);
    }
  }

  /** A factory of the application's own, which the interceptor does not know. */
  static final class OwnFactory implements ClientHttpRequestFactory {
    private final ClientHttpRequestFactory delegate =
        new JdkClientHttpRequestFactory(java.net.http.HttpClient.newHttpClient());

    @Override
    public ClientHttpRequest createRequest(URI uri, HttpMethod method) throws IOException {
      return delegate.createRequest(uri, method);
    }
  }

  /**
   * A factory the interceptor cannot check is refused, with the way out; declared trusted, it is
   * used, and the lost PUT is still sent once.
   */
  @Test
  void anUnknownFactoryIsRefusedUntilTheApplicationTrustsIt() {
    server.proxy.plan(new ScriptedFaults(Fault.FORWARD_THEN_DROP, Fault.FORWARD));

    Throwable refused = put(client(new OwnFactory()));
    Throwable trusted =
        put(
            RestClient.builder()
                .requestFactory(new OwnFactory())
                .requestInterceptor(
                    IdempotentRestClient.builder().trustRequestFactory(OwnFactory.class).build())
                .build());

    assertThat(refused)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(OwnFactory.class.getName())
        .hasMessageContaining("trustRequestFactory(OwnFactory.class)");
    assertThat(trusted.getCause())
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            stop -> assertThat(stop.reason()).isEqualTo(StopReason.NOT_RETRYABLE));
    assertThat(server.proxy.exchanges()).as("PUTs at the wire: the trusted one only").hasSize(1);
  }
}
