package dev.idempotency.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.idempotency.KeyState;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.core.StoredResponsePolicy;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.http.MismatchStatus;
import dev.idempotency.http.OversizedResponse;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.testing.JettyHarness;
import dev.idempotency.testing.LoopbackPorts;
import dev.idempotency.testing.MutableClock;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every row of the contract table of docs/http.md, over real HTTP against the filter in a real
 * Jetty 12.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContractOverHttpTest {
  private static final String BODY = "{\"amount\":1000,\"currency\":\"EUR\"}";

  private final MutableClock clock = new MutableClock();
  private ObservedStore store = new ObservedStore(new InMemoryKeyStore());
  private IdempotencyEngine engine;
  private FilteredTestApp server;

  /**
   * Starts Jetty with a handler over a fresh engine; {@code engineSettings} and {@code settings}
   * adjust them.
   */
  private FilteredTestApp start(
      UnaryOperator<IdempotencyConfig.Builder> engineSettings,
      UnaryOperator<IdempotencyHttpBuilder> settings)
      throws Exception {
    return start(store, engineSettings, settings);
  }

  private FilteredTestApp start(
      KeyStore keyStore,
      UnaryOperator<IdempotencyConfig.Builder> engineSettings,
      UnaryOperator<IdempotencyHttpBuilder> settings)
      throws Exception {
    engine =
        IdempotencyEngine.builder(keyStore)
            .config(engineSettings.apply(IdempotencyConfig.builder().clock(clock)).build())
            .build();
    server = new FilteredTestApp(settings.apply(IdempotencyHttp.builder(engine)).build());
    return server;
  }

  private FilteredTestApp start() throws Exception {
    return start(e -> e, h -> h);
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.app.gate = null;
      server.close();
    }
    if (engine != null) {
      engine.close();
    }
  }

  static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  static String member(HttpResponse<byte[]> r, String name) {
    Matcher m =
        Pattern.compile("\"" + name + "\":(\"((?:[^\"\\\\]|\\\\.)*)\"|true|false|\\d+)")
            .matcher(text(r));
    return m.find() ? (m.group(2) != null ? m.group(2) : m.group(1)) : null;
  }

  /** Asserts an RFC 9457 problem with the contract's members. */
  static void assertProblem(HttpResponse<byte[]> r, int status, String code, boolean retryable) {
    assertThat(r.statusCode()).as(text(r)).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(member(r, "code")).isEqualTo(code);
    assertThat(member(r, "status")).isEqualTo(Integer.toString(status));
    assertThat(member(r, "retryable")).isEqualTo(Boolean.toString(retryable));
    assertThat(member(r, "type")).isEqualTo("https://idempotency.dev/problems/" + code);
    assertThat(member(r, "title")).isNotBlank();
    assertThat(member(r, "detail")).isNotBlank();
    assertThat(r.headers().firstValue("Idempotent-Replayed")).isEmpty();
  }

  @Nested
  class FirstRequestAndReplay {
    /**
     * First request: the application runs once and its live response (every header) reaches the
     * client.
     */
    @Test
    void firstRequestRunsTheApplicationAndReturnsItsResponse() throws Exception {
      // given
      FilteredTestApp s = start();
      // when
      HttpResponse<byte[]> r = s.post("/payments/a", "key-1", BODY);
      // then
      assertThat(r.statusCode()).isEqualTo(201);
      assertThat(text(r))
          .isEqualTo(
              "{\"payment\":1,\"user\":\"alice\",\"bytes\":"
                  + BODY.length()
                  + ",\"hash\":"
                  + java.util.Arrays.hashCode(BODY.getBytes(StandardCharsets.UTF_8))
                  + "}");
      assertThat(r.headers().firstValue("Location")).hasValue("/payments/a/1");
      assertThat(r.headers().firstValue("Set-Cookie"))
          .hasValueSatisfying(c -> assertThat(c).startsWith("session="));
      assertThat(r.headers().firstValue("X-Internal")).hasValue("secret-1");
      assertThat(r.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(1);
    }

    /**
     * Replay: stored status, allowlisted headers and the body byte for byte, plus
     * Idempotent-Replayed.
     */
    @Test
    void retryGetsTheByteIdenticalReplayAndTheApplicationDoesNotRunAgain() throws Exception {
      // given
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/payments/a", "key-1", BODY);
      // when
      HttpResponse<byte[]> replay = s.post("/payments/a", "key-1", BODY);
      // then
      assertThat(replay.statusCode()).isEqualTo(first.statusCode());
      assertThat(replay.body()).isEqualTo(first.body());
      for (String h : new String[] {"Content-Type", "Location", "ETag"}) {
        assertThat(replay.headers().allValues(h)).as(h).isEqualTo(first.headers().allValues(h));
      }
      assertThat(replay.headers().firstValue("Content-Length"))
          .isEqualTo(first.headers().firstValue("Content-Length"));
      assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      // never replayed: Set-Cookie (not opted in) and headers outside the allowlist
      assertThat(replay.headers().firstValue("Set-Cookie")).isEmpty();
      assertThat(replay.headers().firstValue("X-Internal")).isEmpty();
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(1);
    }

    /** The quoted structured-field form of the key names the same record as the bare form. */
    @Test
    void quotedKeyFormIsTheSameKey() throws Exception {
      FilteredTestApp s = start();
      s.post("/payments/a", "key-q", BODY);
      HttpResponse<byte[]> replay = s.post("/payments/a", "\"key-q\"", BODY);
      assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(1);
    }

    /** Set-Cookie is stored and replayed only when opted in. */
    @Test
    void setCookieIsReplayedOnlyWhenOptedIn() throws Exception {
      FilteredTestApp s = start(e -> e, h -> h.storeSetCookie(true));
      HttpResponse<byte[]> first = s.post("/payments/a", "key-c", BODY);
      HttpResponse<byte[]> replay = s.post("/payments/a", "key-c", BODY);
      assertThat(replay.headers().allValues("Set-Cookie"))
          .isNotEmpty()
          .isEqualTo(first.headers().allValues("Set-Cookie"));
    }

    /**
     * sendError is captured as a problem body, stored, and replayed identically; the application
     * ran once.
     */
    @Test
    void sendErrorIsCapturedStoredAndReplayed() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/error", "key-e", BODY);
      HttpResponse<byte[]> replay = s.post("/error", "key-e", BODY);
      assertThat(first.statusCode()).isEqualTo(402);
      assertThat(text(first))
          .isEqualTo(
              "{\"type\":\"about:blank\",\"title\":\"Payment Required\",\"status\":402,"
                  + "\"detail\":\"card \\\"4242\\\" declined #1\"}");
      assertThat(first.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(replay.statusCode()).isEqualTo(402);
      assertThat(replay.body()).isEqualTo(first.body());
      assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(s.app.effects("POST /error")).isEqualTo(1);
    }

    /** A body written through getWriter with a declared charset is captured as the same bytes. */
    @Test
    void writerOutputKeepsItsCharset() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/writer", "key-w", BODY);
      HttpResponse<byte[]> replay = s.post("/writer", "key-w", BODY);
      assertThat(text(first)).isEqualTo("grüße #1");
      assertThat(first.headers().firstValue("Content-Type").orElseThrow())
          .containsIgnoringCase("utf-8");
      assertThat(replay.body()).isEqualTo(first.body());
    }

    /**
     * sendRedirect(String) (and every other overload) is captured: the first response and the
     * replay are the 302.
     */
    @Test
    void sendRedirectIsCapturedStoredAndReplayed() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/redirect", "key-rd", BODY);
      HttpResponse<byte[]> replay = s.post("/redirect", "key-rd", BODY);
      assertThat(first.statusCode()).isEqualTo(302);
      assertThat(first.headers().firstValue("Location")).hasValue("/elsewhere");
      assertThat(text(first)).doesNotContain("discards");
      assertThat(replay.statusCode()).isEqualTo(302);
      assertThat(replay.headers().firstValue("Location")).hasValue("/elsewhere");
      assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(replay.body()).isEqualTo(first.body());
      assertThat(s.app.effects("POST /redirect")).isEqualTo(1);
    }

    /**
     * setCharacterEncoding(Charset), new in Servlet 6.1, is captured: the writer encodes UTF-8,
     * stored and sent.
     */
    @Test
    void writerKeepsACharsetSetAsACharsetObject() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/writer-charset", "key-cs", BODY);
      HttpResponse<byte[]> replay = s.post("/writer-charset", "key-cs", BODY);
      assertThat(first.body()).isEqualTo("héllo € #1".getBytes(StandardCharsets.UTF_8));
      assertThat(first.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("text/plain")
          .containsIgnoringCase("charset=utf-8");
      assertThat(replay.body()).isEqualTo(first.body());
      assertThat(replay.headers().firstValue("Content-Type"))
          .isEqualTo(first.headers().firstValue("Content-Type"));
    }

    /**
     * JSON written through getWriter without a charset is UTF-8, and its Content-Type stays what
     * the app set.
     */
    @Test
    void jsonWriterOutputIsUtf8WithoutACharsetParameter() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/json-writer", "key-js", BODY);
      HttpResponse<byte[]> replay = s.post("/json-writer", "key-js", BODY);
      assertThat(first.body())
          .isEqualTo(
              "{\"name\":\"héllo € 日本 \uD83D\uDE00\",\"n\":1}".getBytes(StandardCharsets.UTF_8));
      assertThat(first.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(replay.body()).isEqualTo(first.body());
      assertThat(replay.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");

      HttpResponse<byte[]> suffixed = s.post("/problem-writer", "key-js2", BODY);
      assertThat(suffixed.body())
          .isEqualTo("{\"sign\":\"€\",\"n\":1}".getBytes(StandardCharsets.UTF_8));
      assertThat(suffixed.headers().firstValue("Content-Type"))
          .hasValue("application/vnd.test+json");
      assertThat(s.post("/problem-writer", "key-js2", BODY).body()).isEqualTo(suffixed.body());
    }

    /**
     * sendError's message is escaped as every problem body: U+2028/2029 escaped, a lone surrogate
     * replaced.
     */
    @Test
    void sendErrorMessageIsEscapedLikeEveryProblem() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/error-escapes", "key-ee", BODY);
      HttpResponse<byte[]> replay = s.post("/error-escapes", "key-ee", BODY);
      assertThat(first.statusCode()).isEqualTo(400);
      assertThat(text(first))
          .isEqualTo(
              "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
                  + "\"detail\":\"line\\u2028sep\\u2029 lone \\ufffd #1\"}");
      assertThat(replay.body()).isEqualTo(first.body());
    }

    /**
     * The application reads the very body the filter fingerprinted, and form parameters from it.
     */
    @Test
    void bufferedBodyAndFormParametersReachTheApplication() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> r =
          s.send(
              HttpRequest.newBuilder(s.uri("/form?b=q%20s"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("Idempotency-Key", "key-f")
                  .header("X-Test-User", "alice")
                  .POST(HttpRequest.BodyPublishers.ofString("a=x%26y")));
      assertThat(text(r)).isEqualTo("a=x&y b=q s #1");
    }

    /** A redaction hook changes what is stored, never what the first caller receives. */
    @Test
    void redactorChangesOnlyTheStoredBody() throws Exception {
      FilteredTestApp s =
          start(
              e -> e,
              h -> h.bodyRedactor(resp -> "{\"redacted\":true}".getBytes(StandardCharsets.UTF_8)));
      HttpResponse<byte[]> first = s.post("/payments/a", "key-r", BODY);
      HttpResponse<byte[]> replay = s.post("/payments/a", "key-r", BODY);
      assertThat(text(first)).startsWith("{\"payment\":1");
      assertThat(text(replay)).isEqualTo("{\"redacted\":true}");
    }
  }

  @Nested
  class Mismatch {
    /** Same key, other payload: rejected with the configured status, never replayed, never run. */
    @ParameterizedTest
    @EnumSource(MismatchStatus.class)
    void sameKeyWithAnotherBodyIsRejectedWithTheConfiguredStatus(MismatchStatus status)
        throws Exception {
      FilteredTestApp s = start(e -> e, h -> h.mismatchStatus(status));
      s.post("/payments/a", "key-m", BODY);
      HttpResponse<byte[]> r =
          s.post("/payments/a", "key-m", "{\"amount\":9999,\"currency\":\"EUR\"}");
      assertProblem(r, status.status(), "idempotency_key_reused", false);
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(1);
    }

    /** Same key and body on another path is another request too. */
    @Test
    void sameKeyOnAnotherPathIsAMismatch() throws Exception {
      FilteredTestApp s = start();
      s.post("/payments/a", "key-m2", BODY);
      assertProblem(s.post("/payments/b", "key-m2", BODY), 409, "idempotency_key_reused", false);
      assertThat(s.app.effects("POST /payments/b")).isZero();
    }
  }

  @Nested
  class InFlight {
    /**
     * A retry while the first request runs gets 409 + Retry-After; after completion, the replay.
     */
    @Test
    void retryWhileInFlightGets409WithRetryAfter() throws Exception {
      FilteredTestApp s = start();
      s.app.gate = new CountDownLatch(1);
      s.app.entered = new CountDownLatch(1);
      CompletableFuture<HttpResponse<byte[]>> first =
          JettyHarness.CLIENT.sendAsync(
              s.post("/payments/a", "key-i", "alice", BODY).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(s.app.entered.await(10, TimeUnit.SECONDS)).isTrue();

      HttpResponse<byte[]> conflict = s.post("/payments/a", "key-i", BODY);
      assertProblem(conflict, 409, "idempotency_request_in_flight", true);
      assertThat(Long.parseLong(conflict.headers().firstValue("Retry-After").orElseThrow()))
          .isBetween(1L, 30L);

      s.app.gate.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
      HttpResponse<byte[]> replay = s.post("/payments/a", "key-i", BODY);
      assertThat(replay.body()).isEqualTo(first.get().body());
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(1);
    }

    /**
     * With the engine's bounded wait, the retry waits for the first request and receives its
     * replay.
     */
    @Test
    void boundedWaitEndsInTheReplay() throws Exception {
      FilteredTestApp s =
          start(
              e ->
                  e.inFlightPolicy(
                      InFlightPolicy.waitUpTo(Duration.ofSeconds(20), Duration.ofMillis(10))),
              h -> h);
      s.app.gate = new CountDownLatch(1);
      s.app.entered = new CountDownLatch(1);
      CompletableFuture<HttpResponse<byte[]>> first =
          JettyHarness.CLIENT.sendAsync(
              s.post("/payments/a", "key-w", "alice", BODY).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(s.app.entered.await(10, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<HttpResponse<byte[]>> second =
          JettyHarness.CLIENT.sendAsync(
              s.post("/payments/a", "key-w", "alice", BODY).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      // the second request found the key in flight and is waiting (not a guess about time: the
      // store saw it)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (store.inFlightClaims.get() == 0) {
        if (System.nanoTime() - deadline > 0) {
          fail(
              "the second request never reached the store as an in-flight claim within 10 s: check that it was"
                  + " sent with the same key and user, and that the engine's bounded wait claims before waiting");
        }
        Thread.sleep(1);
      }
      s.app.gate.countDown();
      HttpResponse<byte[]> waited = second.get(20, TimeUnit.SECONDS);
      assertThat(waited.statusCode()).isEqualTo(201);
      assertThat(waited.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(waited.body()).isEqualTo(first.get().body());
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(1);
    }

    /**
     * {@code inFlightAccepted}: the retry gets 202 + Location; the status endpoint serves
     * in-flight, then the stored response.
     */
    @Test
    void inFlightAcceptedServesAStatusUrl() throws Exception {
      FilteredTestApp s = start(e -> e, h -> h.inFlightAccepted("/idempotency-requests"));
      s.app.gate = new CountDownLatch(1);
      s.app.entered = new CountDownLatch(1);
      CompletableFuture<HttpResponse<byte[]>> first =
          JettyHarness.CLIENT.sendAsync(
              s.post("/payments/a", "key/202?", "alice", BODY).build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(s.app.entered.await(10, TimeUnit.SECONDS)).isTrue();

      HttpResponse<byte[]> accepted = s.post("/payments/a", "key/202?", BODY);
      assertThat(accepted.statusCode()).isEqualTo(202);
      String location = accepted.headers().firstValue("Location").orElseThrow();
      assertThat(location).isEqualTo("/idempotency-requests?key=key%2F202%3F");
      assertThat(accepted.headers().firstValue("Retry-After")).isPresent();
      assertThat(text(accepted))
          .isEqualTo("{\"state\":\"in_flight\",\"statusUrl\":\"" + location + "\"}");

      HttpRequest.Builder status =
          HttpRequest.newBuilder(s.uri(location)).header("X-Test-User", "alice");
      assertThat(s.send(status).statusCode()).isEqualTo(202);

      s.app.gate.countDown();
      HttpResponse<byte[]> original = first.get(10, TimeUnit.SECONDS);
      HttpResponse<byte[]> done = s.send(status);
      assertThat(done.statusCode()).isEqualTo(201);
      assertThat(done.body()).isEqualTo(original.body());
      assertThat(done.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      // another caller cannot read it
      assertProblem(
          s.send(HttpRequest.newBuilder(s.uri(location)).header("X-Test-User", "bob")),
          404,
          "idempotency_request_not_found",
          false);
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(1);
    }
  }

  @Nested
  class Keys {
    /** Key missing where required: 400, the application does not run. */
    @Test
    void missingKeyIs400() throws Exception {
      FilteredTestApp s = start();
      assertProblem(s.post("/payments/a", null, BODY), 400, "idempotency_key_missing", false);
      assertThat(s.app.totalEffects()).isZero();
    }

    /**
     * A refusal answered before the body is read says {@code Connection: close}: the container
     * closes a connection whose request body it did not read, and a client that sent its next
     * request on it would see that request fail ("header parser received no bytes"). A refusal
     * after the body was read keeps the connection open.
     */
    @Test
    void refusalBeforeTheBodyIsReadClosesTheConnection() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> missing = s.post("/payments/a", null, BODY);
      assertProblem(missing, 400, "idempotency_key_missing", false);
      assertThat(missing.headers().firstValue("Connection")).hasValue("close");
      HttpResponse<byte[]> invalid = s.post("/payments/a", "a b", BODY);
      assertProblem(invalid, 400, "idempotency_key_invalid", false);
      assertThat(invalid.headers().firstValue("Connection")).hasValue("close");
      assertThat(s.post("/payments/a", "key-c", BODY).headers().firstValue("Connection")).isEmpty();
      HttpResponse<byte[]> reused = s.post("/payments/a", "key-c", "{}");
      assertProblem(reused, 409, "idempotency_key_reused", false);
      assertThat(reused.headers().firstValue("Connection")).as("the body was read").isEmpty();
    }

    /**
     * An optional endpoint without a key passes through without idempotency (each request runs).
     */
    @Test
    void optionalEndpointWithoutKeyPassesThrough() throws Exception {
      FilteredTestApp s =
          start(
              e -> e,
              h -> h.endpoint(EndpointRule.of(KeyRequirement.OPTIONAL, "/payments/**", "POST")));
      assertThat(s.post("/payments/a", null, BODY).statusCode()).isEqualTo(201);
      assertThat(s.post("/payments/a", null, BODY).statusCode()).isEqualTo(201);
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(2);
      assertThat(s.post("/payments/a", "k", BODY).statusCode()).isEqualTo(201);
      assertThat(s.post("/payments/a", "k", BODY).headers().firstValue("Idempotent-Replayed"))
          .hasValue("true");
    }

    /** Safe methods and paths outside the rules pass through, even with a key. */
    @Test
    void getAndUnmatchedPathsPassThrough() throws Exception {
      FilteredTestApp s =
          start(
              e -> e,
              h -> h.endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/payments/*", "POST")));
      HttpRequest.Builder get =
          HttpRequest.newBuilder(s.uri("/payments/a")).header("Idempotency-Key", "g");
      s.send(get);
      s.send(get);
      assertThat(s.app.effects("GET /payments/a")).isEqualTo(2);
      s.post("/other", null, BODY);
      assertThat(s.app.effects("POST /other")).isEqualTo(1);
    }

    /**
     * A rule whose method is written in lower case ({@code "post"}, as a hand-written property may
     * say) guards POST; and a request that spells its method in another case ({@code post}, which
     * Jetty hands the application as sent, and a server routing methods ignoring case would run as
     * a POST) is guarded by a rule for POST.
     */
    @Test
    void aRuleWrittenInLowerCaseGuardsPostHoweverTheRequestSpellsIt() throws Exception {
      FilteredTestApp s =
          start(
              e -> e,
              h ->
                  h.endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/payments", "post"))
                      .endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST")));
      assertProblem(s.post("/payments", null, BODY), 400, "idempotency_key_missing", false);
      for (String path : List.of("/payments", "/orders")) {
        for (String spelling : List.of("post", "Post")) {
          assertThat(s.rawWithoutKey(spelling, path))
              .as(spelling + " " + path)
              .startsWith("HTTP/1.1 400 ")
              .contains("\"code\":\"idempotency_key_missing\"");
        }
      }
      assertThat(s.app.totalEffects()).isZero();
      assertThat(s.post("/payments", "key-lc", BODY).statusCode()).isEqualTo(200);
      assertThat(s.post("/payments", "key-lc", BODY).headers().firstValue("Idempotent-Replayed"))
          .hasValue("true");
      assertThat(s.app.effects("POST /payments")).isEqualTo(1);
    }

    /**
     * Endpoint rules match the container's decoded, normalised path: path parameters and dot
     * segments cannot slip a guarded POST past a REQUIRED rule.
     */
    @Test
    void pathParametersAndDotSegmentsDoNotEscapeARequiredRule() throws Exception {
      FilteredTestApp s =
          start(
              e -> e,
              h -> h.endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/payments", "POST")));
      assertProblem(s.post("/payments;x=1", null, BODY), 400, "idempotency_key_missing", false);
      assertProblem(
          s.post("/other/../payments", null, BODY), 400, "idempotency_key_missing", false);
      assertProblem(s.post("/%70ayments", null, BODY), 400, "idempotency_key_missing", false);
      assertThat(s.app.totalEffects()).isZero();
      // the fingerprint keeps the path as sent: the same key with path parameters is another
      // request
      assertThat(s.post("/payments;x=1", "key-pp", BODY).statusCode()).isEqualTo(200);
      assertProblem(s.post("/payments", "key-pp", BODY), 409, "idempotency_key_reused", false);
      assertThat(
              s.post("/payments;x=1", "key-pp", BODY).headers().firstValue("Idempotent-Replayed"))
          .hasValue("true");
    }

    @Test
    void emptyKeyIs400Invalid() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> r = s.post("/payments/a", "", BODY);
      assertProblem(r, 400, "idempotency_key_invalid", false);
      assertThat(member(r, "rule")).isEqualTo("empty");
      assertThat(s.app.totalEffects()).isZero();
    }

    @Test
    void keyOf256CharactersIs400Invalid() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> r = s.post("/payments/a", "k".repeat(256), BODY);
      assertProblem(r, 400, "idempotency_key_invalid", false);
      assertThat(member(r, "rule")).isEqualTo("too_long");
      assertThat(s.post("/payments/a", "k".repeat(255), BODY).statusCode()).isEqualTo(201);
    }

    /**
     * A tab (a control character HTTP allows in field values) reaches the filter and is refused by
     * it.
     */
    @Test
    void keyWithControlCharacterIs400Invalid() throws Exception {
      FilteredTestApp s = start();
      String raw = s.rawPostWithKey("ab\tcd".getBytes(StandardCharsets.US_ASCII), "/payments/a");
      assertThat(raw).startsWith("HTTP/1.1 400 ");
      assertThat(raw)
          .contains("\"code\":\"idempotency_key_invalid\"")
          .contains("\"rule\":\"illegal_character\"");
      assertThat(s.app.totalEffects()).isZero();
    }

    /**
     * Other control characters are refused by Jetty's HTTP parser before any filter runs: still
     * 400, still no run.
     */
    @Test
    void keyWithBareControlByteNeverReachesTheApplication() throws Exception {
      FilteredTestApp s = start();
      String raw = s.rawPostWithKey(new byte[] {'a', 0x01, 'b'}, "/payments/a");
      assertThat(raw).startsWith("HTTP/1.1 400 ");
      assertThat(s.app.totalEffects()).isZero();
    }

    @Test
    void nonAsciiKeyIs400Invalid() throws Exception {
      FilteredTestApp s = start();
      String raw = s.rawPostWithKey("clé-1".getBytes(StandardCharsets.UTF_8), "/payments/a");
      assertThat(raw).startsWith("HTTP/1.1 400 ");
      assertThat(raw)
          .contains("\"code\":\"idempotency_key_invalid\"")
          .contains("\"rule\":\"illegal_character\"");
      assertThat(s.app.totalEffects()).isZero();
    }

    @Test
    void keySentTwiceIs400Invalid() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> r =
          s.send(s.post("/payments/a", "k1", "alice", BODY).header("Idempotency-Key", "k2"));
      assertProblem(r, 400, "idempotency_key_invalid", false);
      assertThat(member(r, "rule")).isEqualTo("multiple_values");
    }
  }

  @Nested
  class Scopes {
    /**
     * The same key from another caller is a new request: it runs, and never sees the first caller's
     * response.
     */
    @Test
    void keyReusedByAnotherScopeIsANewRequest() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> alice = s.send(s.post("/payments/a", "shared", "alice", BODY));
      HttpResponse<byte[]> bob = s.send(s.post("/payments/a", "shared", "bob", BODY));
      assertThat(bob.statusCode()).isEqualTo(201);
      assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(text(bob)).contains("\"user\":\"bob\"").isNotEqualTo(text(alice));
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(2);
      // and each caller's retry replays its own response
      assertThat(s.send(s.post("/payments/a", "shared", "bob", BODY)).body()).isEqualTo(bob.body());
      assertThat(s.send(s.post("/payments/a", "shared", "alice", BODY)).body())
          .isEqualTo(alice.body());
    }

    /** No authenticated caller and no anonymous scope: 401, nothing runs. */
    @Test
    void unauthenticatedRequestIsRefused() throws Exception {
      FilteredTestApp s = start();
      assertProblem(
          s.send(s.post("/payments/a", "k", null, BODY)),
          401,
          "idempotency_scope_unresolved",
          false);
      assertThat(s.app.totalEffects()).isZero();
    }
  }

  @Nested
  class Expiry {
    /** Past the replay window, a reused key is a new request (even with another body). */
    @Test
    void reusedKeyAfterTheWindowIsANewRequest() throws Exception {
      FilteredTestApp s =
          start(e -> e.replayWindow(Duration.ofHours(1)).retention(Duration.ofHours(2)), h -> h);
      s.post("/payments/a", "key-x", BODY);
      clock.advance(Duration.ofMinutes(59));
      assertThat(s.post("/payments/a", "key-x", BODY).headers().firstValue("Idempotent-Replayed"))
          .hasValue("true");
      clock.advance(Duration.ofMinutes(1));
      HttpResponse<byte[]> fresh = s.post("/payments/a", "key-x", "{\"amount\":5}");
      assertThat(fresh.statusCode()).isEqualTo(201);
      assertThat(fresh.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(s.app.effects("POST /payments/a")).isEqualTo(2);
    }
  }

  @Nested
  class StoreDown {
    /** Store unreachable: 503 + Retry-After, and the application never runs (fail closed). */
    @Test
    void unreachableStoreIs503AndTheApplicationDoesNotRun() throws Exception {
      // the JDBC store, its PostgreSQL server address pointing at a loopback port nothing listens
      // on
      org.postgresql.ds.PGSimpleDataSource unreachable = new org.postgresql.ds.PGSimpleDataSource();
      unreachable.setURL("jdbc:postgresql://127.0.0.1:" + LoopbackPorts.closed() + "/idem");
      unreachable.setConnectTimeout(2);
      KeyStore jdbc =
          dev.idempotency.store.jdbc.JdbcKeyStore.builder(unreachable)
              .dialect(dev.idempotency.store.jdbc.Dialect.POSTGRESQL)
              .validateSchema(false)
              .build();
      FilteredTestApp s = start(jdbc, e -> e, h -> h);
      HttpResponse<byte[]> r = s.post("/payments/a", "key-d", BODY);
      assertProblem(r, 503, "idempotency_store_unavailable", true);
      assertThat(r.headers().firstValue("Retry-After")).hasValue("5");
      assertThat(s.app.totalEffects()).isZero();
    }
  }

  @Nested
  class Limits {
    /** A body over the limit is refused with 413 before anything is claimed. */
    @Test
    void oversizedRequestIs413AndNothingIsClaimed() throws Exception {
      FilteredTestApp s = start(e -> e, h -> h.maxRequestBodyBytes(1024));
      String big = "x".repeat(2000);
      assertProblem(s.post("/payments/a", "key-big", big), 413, "request_too_large", false);
      // without Content-Length (chunked): the bounded read catches it too
      HttpResponse<byte[]> chunked =
          s.send(
              HttpRequest.newBuilder(s.uri("/payments/a"))
                  .header("Idempotency-Key", "key-big")
                  .header("X-Test-User", "alice")
                  .POST(
                      HttpRequest.BodyPublishers.ofInputStream(
                          () -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)))));
      assertProblem(chunked, 413, "request_too_large", false);
      assertThat(store.claims.get()).isZero();
      assertThat(engine.store().lookup(RecordId.of("alice", "key-big"))).isEmpty();
      assertThat(s.app.totalEffects()).isZero();
      // the key is still free for a request within the limit
      assertThat(s.post("/payments/a", "key-big", BODY).statusCode()).isEqualTo(201);
    }

    /**
     * A response over the storable limit reaches the caller whole; the retry gets the not-stored
     * marker.
     */
    @ParameterizedTest(name = "storedResponsePolicy excludes 5xx: {0}")
    @ValueSource(booleans = {false, true})
    void oversizedResponseIsReturnedButOnlyAMarkerIsStored(boolean policyExcludes5xx)
        throws Exception {
      // the policy judges the application's 200, never the marker's 500: excluding 500 must not
      // release the key
      FilteredTestApp s =
          start(
              e ->
                  policyExcludes5xx
                      ? e.storedResponsePolicy(
                          StoredResponsePolicy.storeAllExcept(500, 502, 503, 504))
                      : e,
              h -> h.maxStoredResponseBytes(1024));
      HttpResponse<byte[]> first = s.post("/big?size=5000", "key-o", BODY);
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.body()).hasSize(5000);
      HttpResponse<byte[]> retry = s.post("/big?size=5000", "key-o", BODY);
      assertThat(retry.statusCode()).isEqualTo(500);
      assertThat(member(retry, "code")).isEqualTo("idempotency_response_not_stored");
      assertThat(member(retry, "retryable")).isEqualTo("false");
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(s.app.effects("POST /big")).isEqualTo(1);
    }

    /**
     * With RELEASE_KEY, an oversized response releases the key: a retry runs again, and is never
     * truncated.
     */
    @Test
    void oversizedResponseWithReleaseKeyRunsTheRetryAgain() throws Exception {
      FilteredTestApp s =
          start(
              e -> e,
              h -> h.maxStoredResponseBytes(1024).oversizedResponse(OversizedResponse.RELEASE_KEY));
      HttpResponse<byte[]> first = s.post("/big?size=5000", "key-o2", BODY);
      HttpResponse<byte[]> retry = s.post("/big?size=5000", "key-o2", BODY);
      assertThat(first.body()).hasSize(5000);
      assertThat(retry.body()).hasSize(5000);
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(s.app.effects("POST /big")).isEqualTo(2);
    }
  }

  @Nested
  class Failures {
    /**
     * The application threw: the container answers 500, the key is released, and a retry runs anew.
     */
    @Test
    void exceptionReleasesTheKey() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first = s.post("/throw", "key-t", BODY);
      assertThat(first.statusCode()).isEqualTo(500);
      assertThat(text(first)).doesNotContain("partial");
      HttpResponse<byte[]> retry = s.post("/throw", "key-t", BODY);
      assertThat(retry.statusCode()).isEqualTo(500);
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(s.app.effects("POST /throw")).isEqualTo(2);
    }

    /**
     * A request of two steps sees the claim's Execution as a request attribute. Failing after its
     * first step committed a recovery point, it is not released: a retry during the lease gets 409
     * in flight, and the retry after the lease takes it over, resumes from the point, does not
     * charge again, and uses the same downstream key.
     */
    @Test
    void failedRequestOfTwoStepsResumesFromItsRecoveryPoint() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> first =
          s.send(s.post("/two-phase", "key-2p", "alice", BODY).header("X-Test-Crash", "1"));
      assertThat(first.statusCode()).as(text(first)).isEqualTo(500);
      assertThat(engine.store().lookup(RecordId.of("alice", "key-2p")))
          .hasValueSatisfying(
              r -> {
                assertThat(r.state()).isEqualTo(KeyState.IN_FLIGHT);
                assertThat(r.recoveryPoint())
                    .hasValueSatisfying(p -> assertThat(p.name()).isEqualTo("charged"));
              });

      HttpResponse<byte[]> duringLease = s.post("/two-phase", "key-2p", BODY);
      assertProblem(duringLease, 409, "idempotency_request_in_flight", true);

      clock.advance(engine.config().lease());
      HttpResponse<byte[]> resumed = s.post("/two-phase", "key-2p", BODY);
      assertThat(resumed.statusCode()).as(text(resumed)).isEqualTo(201);
      assertThat(text(resumed)).isEqualTo("charges=1 resumedFrom=charged takeover=true");
      assertThat(s.app.chargeKeys).hasSize(2).containsOnly(s.app.chargeKeys.get(0));

      HttpResponse<byte[]> replay = s.post("/two-phase", "key-2p", BODY);
      assertThat(replay.body()).isEqualTo(resumed.body());
      assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(s.app.charges).hasValue(1);
    }

    /**
     * An async servlet behind a guarded endpoint is refused with a clear message; the key is
     * released.
     */
    @Test
    void asyncIsRefusedWithAClearMessage() throws Exception {
      FilteredTestApp s = start();
      HttpResponse<byte[]> r = s.post("/async", "key-a", BODY);
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(engine.store().lookup(RecordId.of("alice", "key-a"))).isEmpty();
      assertThat(BufferedBodyRequest.ASYNC_REFUSED).contains("does not support async servlets");
    }
  }

  @Nested
  class PathSpellings {
    /**
     * Every spelling of a path that a REQUIRED rule guards needs the key: a POST without one is
     * refused and the application does not run, whether the filter refuses it (400
     * idempotency_key_missing) or Jetty does first (an ambiguous URI).
     */
    @Test
    void spellingsOfAGuardedPathNeedTheKey() throws Exception {
      FilteredTestApp s =
          start(
              e -> e, h -> h.endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST")));
      for (String path :
          java.util.List.of(
              "/orders",
              "/orders/",
              "//orders",
              "/orders//",
              "/./orders",
              "/x/../orders",
              "/orders;jsessionid=abc",
              "/%6Frders",
              "/ORDERS",
              "/Orders/")) {
        HttpResponse<byte[]> r = s.post(path, null, BODY);
        assertThat(r.statusCode()).as("POST " + path + " without a key: " + text(r)).isEqualTo(400);
        assertThat(s.app.totalEffects())
            .as("the application ran for POST " + path + " without a key")
            .isZero();
      }
      assertProblem(s.post("/orders/", null, BODY), 400, "idempotency_key_missing", false);
      assertThat(s.post("/orders/1", null, BODY).statusCode())
          .as("another path passes through")
          .isEqualTo(200);
    }
  }
}
