package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Scope;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The handler without a server: defaults, validation messages, and the order of its checks. */
class IdempotencyHttpTest {
  private final IdempotencyEngine engine =
      IdempotencyEngine.builder(new InMemoryKeyStore()).build();
  private final AtomicInteger runs = new AtomicInteger();
  private final Downstream app =
      (body, execution) -> {
        runs.incrementAndGet();
        return StoredResponse.of(
            200, Map.of("Content-Type", List.of("text/plain"), "Set-Cookie", List.of("s=1")), body);
      };

  @AfterEach
  void close() {
    engine.close();
  }

  private static String body(HttpResult r) {
    return ((HttpResult.Respond) r).response().bodyAsUtf8();
  }

  /** The defaults are the documented ones. */
  @Test
  void defaults() {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
    assertThat(http.headerName()).isEqualTo("Idempotency-Key");
    assertThat(http.endpoints())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.methods()).containsExactlyInAnyOrder("POST", "PATCH");
              assertThat(r.pathPattern()).isEqualTo("/**");
              assertThat(r.requirement()).isEqualTo(KeyRequirement.REQUIRED);
            });
    assertThat(http.mismatchStatus()).isEqualTo(MismatchStatus.CONFLICT);
    assertThat(http.inFlightResponse()).isEqualTo(InFlightResponse.CONFLICT);
    assertThat(http.storedHeaders())
        .contains("Content-Type", "Location", "ETag")
        .doesNotContain("Set-Cookie");
    assertThat(http.storesSetCookie()).isFalse();
    assertThat(http.maxRequestBodyBytes()).isEqualTo(1 << 20);
    assertThat(http.maxStoredResponseBytes()).isEqualTo(1 << 20);
    assertThat(http.oversizedResponse()).isEqualTo(OversizedResponse.STORE_MARKER);
    assertThat(http.anonymousScope()).isEmpty();
  }

  /** Every bad setting is refused at once, with a message that names it. */
  @Test
  void invalidSettingsAreRefusedNamingTheSetting() {
    IdempotencyHttpBuilder b = IdempotencyHttp.builder(engine);
    assertThatThrownBy(() -> b.headerName("Idem Key")).hasMessageContaining("headerName");
    assertThatThrownBy(() -> b.maxRequestBodyBytes(-1)).hasMessageContaining("maxRequestBodyBytes");
    assertThatThrownBy(() -> b.maxStoredResponseBytes(10))
        .hasMessageContaining("maxStoredResponseBytes");
    assertThatThrownBy(() -> b.storedHeaders("Content-Type", "set-cookie"))
        .hasMessageContaining("storeSetCookie");
    assertThatThrownBy(() -> b.inFlightAccepted("status/")).hasMessageContaining("statusPath");
    assertThatThrownBy(() -> b.storeUnavailableRetryAfter(Duration.ZERO))
        .hasMessageContaining("storeUnavailableRetryAfter");
    assertThatThrownBy(() -> b.problemTypeBase("not a uri"))
        .hasMessageContaining("problemTypeBase");
    assertThatThrownBy(() -> EndpointRule.of(KeyRequirement.REQUIRED, "/a", "GET"))
        .hasMessageContaining("safe");
    assertThatThrownBy(() -> EndpointRule.of(KeyRequirement.REQUIRED, "a", "POST"))
        .hasMessageContaining("path pattern");
    assertThatThrownBy(() -> EndpointRule.of(KeyRequirement.REQUIRED, "/**/a", "POST"))
        .hasMessageContaining("**");
    assertThatThrownBy(() -> FingerprintStrategy.jsonMembers()).hasMessageContaining("jsonMembers");
  }

  /** A missing key is refused before the body is read; an invalid key likewise. */
  @Test
  void keyIsCheckedBeforeTheBodyIsRead() throws Exception {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
    FakeRequest missing = FakeRequest.post("/a", null, "{}");
    assertThat(body(http.handle(missing, app))).contains("\"code\":\"idempotency_key_missing\"");
    FakeRequest invalid = FakeRequest.post("/a", "a b", "{}");
    assertThat(body(http.handle(invalid, app))).contains("\"rule\":\"illegal_character\"");
    assertThat(missing.bodyReads + invalid.bodyReads).isZero();
    assertThat(runs).hasValue(0);
  }

  /**
   * A declared length over the limit is refused without reading; an undeclared one by the bounded
   * read.
   */
  @Test
  void oversizedBodiesAreRefused() throws Exception {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).maxRequestBodyBytes(4).build();
    FakeRequest declared = FakeRequest.post("/a", "k", "12345");
    HttpResult r = http.handle(declared, app);
    assertThat(((HttpResult.Respond) r).response().status()).isEqualTo(413);
    assertThat(declared.bodyReads).isZero();
    FakeRequest chunked = FakeRequest.post("/a", "k", "12345");
    chunked.declareLength = false;
    assertThat(((HttpResult.Respond) http.handle(chunked, app)).response().status()).isEqualTo(413);
    FakeRequest exact = FakeRequest.post("/a", "k", "1234");
    assertThat(((HttpResult.Respond) http.handle(exact, app)).response().status()).isEqualTo(200);
  }

  /** The anonymous scope, when configured, stands in for a missing principal. */
  @Test
  void anonymousScopeWhenConfigured() throws Exception {
    FakeRequest anonymous = FakeRequest.post("/a", "k", "{}");
    anonymous.principal = null;
    assertThat(body(IdempotencyHttp.builder(engine).build().handle(anonymous, app)))
        .contains("idempotency_scope_unresolved");
    HttpResult r =
        IdempotencyHttp.builder(engine)
            .anonymousScope(Scope.of("anonymous"))
            .build()
            .handle(anonymous, app);
    assertThat(((HttpResult.Respond) r).disposition()).isEqualTo(HttpResult.Disposition.EXECUTED);
  }

  /**
   * A request that sent credentials yet reached the handler with no caller met a filter mapped
   * before authentication: the 401 says so first, and the log says it once, however many such
   * requests arrive. A request without credentials is told to authenticate.
   */
  @Test
  void credentialsWithoutACallerPointAtTheFilterOrderOnce() throws Exception {
    Logger log = Logger.getLogger(IdempotencyHttp.class.getName());
    List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            if (r.getLevel() == Level.WARNING) {
              warnings.add(r);
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(handler);
    try {
      IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
      for (int i = 0; i < 3; i++) {
        FakeRequest early =
            FakeRequest.post("/payments", "k" + i, "{}").header("Authorization", "Basic YTpi");
        early.principal = null;
        assertThat(body(http.handle(early, app)))
            .contains("idempotency_scope_unresolved")
            .contains("the filter runs before authentication");
      }
      assertThat(warnings).hasSize(1);
      assertThat(warnings.get(0).getMessage())
          .contains("/payments")
          .contains("before authentication");

      FakeRequest anonymous = FakeRequest.post("/payments", "k", "{}");
      anonymous.principal = null;
      assertThat(body(http.handle(anonymous, app)))
          .contains("has no authenticated caller: authenticate")
          .doesNotContain("before authentication");
      assertThat(runs).hasValue(0);
    } finally {
      log.removeHandler(handler);
    }
  }

  /** A trusted-header scope resolver reads only the named header. */
  @Test
  void trustedHeaderScope() throws Exception {
    IdempotencyHttp http =
        IdempotencyHttp.builder(engine)
            .scopeResolver(ScopeResolver.trustedHeader("X-Account"))
            .build();
    FakeRequest a = FakeRequest.post("/a", "k", "{}").header("X-Account", "acct-1");
    FakeRequest b = FakeRequest.post("/a", "k", "{}").header("X-Account", "acct-2");
    http.handle(a, app);
    HttpResult second = http.handle(b, app);
    assertThat(((HttpResult.Respond) second).disposition())
        .isEqualTo(HttpResult.Disposition.EXECUTED);
    assertThat(runs).hasValue(2);
  }

  /**
   * The live response keeps every header; the stored one only the allowlist, and the replay says
   * so.
   */
  @Test
  void replayCarriesOnlyAllowlistedHeaders() throws Exception {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
    HttpResult.Respond live =
        (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), app);
    HttpResult.Respond replay =
        (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), app);
    assertThat(live.response().headers()).containsKeys("Content-Type", "Set-Cookie");
    assertThat(replay.response().headers()).containsOnlyKeys("Content-Type", "Idempotent-Replayed");
    assertThat(replay.response().body()).isEqualTo("x".getBytes(StandardCharsets.UTF_8));
    assertThat(replay.disposition()).isEqualTo(HttpResult.Disposition.REPLAYED);
  }

  /** The application's exception comes back as ApplicationFailedException with the key released. */
  @Test
  void applicationFailureIsRethrownAndReleasesTheKey() {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
    IllegalStateException boom = new IllegalStateException("boom");
    assertThatThrownBy(
            () ->
                http.handle(
                    FakeRequest.post("/a", "k", "x"),
                    (body, execution) -> {
                      throw boom;
                    }))
        .isInstanceOf(ApplicationFailedException.class)
        .hasCause(boom)
        .satisfies(e -> assertThat(((ApplicationFailedException) e).keyReleased()).isTrue());
  }

  /**
   * An application's error becomes a problem body escaped like every other one: U+2028/2029, lone
   * surrogates.
   */
  @Test
  void applicationErrorIsAnEscapedProblem() {
    StoredResponse r =
        IdempotencyHttp.applicationError(402, "card \"42\"\u2028\u2029 \ud800 declined\n");
    assertThat(r.status()).isEqualTo(402);
    assertThat(r.headers()).containsOnlyKeys("Content-Type");
    assertThat(r.firstHeader("Content-Type")).hasValue("application/problem+json");
    assertThat(r.bodyAsUtf8())
        .isEqualTo(
            "{\"type\":\"about:blank\",\"title\":\"Payment Required\",\"status\":402,"
                + "\"detail\":\"card \\\"42\\\"\\u2028\\u2029 \\ufffd declined\\n\"}");
    assertThat(IdempotencyHttp.applicationError(599, null).bodyAsUtf8())
        .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Server Error\",\"status\":599}");
    assertThat(IdempotencyHttp.applicationError(404, "").bodyAsUtf8()).doesNotContain("detail");
  }

  /** The 503 of an unreachable store is built once per handler, not per request. */
  @Test
  void storeUnavailableResponseIsBuiltOnce() throws Exception {
    KeyStore down =
        (KeyStore)
            Proxy.newProxyInstance(
                KeyStore.class.getClassLoader(),
                new Class<?>[] {KeyStore.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("capabilities")) {
                    return Set.of();
                  }
                  if (method.getName().equals("maxResponseBytes")) {
                    return Long.MAX_VALUE; // a property of the store, read without a server
                  }
                  throw new StoreUnavailableException("down");
                });
    try (IdempotencyEngine downEngine = IdempotencyEngine.builder(down).build()) {
      IdempotencyHttp http =
          IdempotencyHttp.builder(downEngine)
              .storeUnavailableRetryAfter(Duration.ofSeconds(7))
              .build();
      StoredResponse first =
          ((HttpResult.Respond) http.handle(FakeRequest.post("/a", "k1", "x"), app)).response();
      StoredResponse second =
          ((HttpResult.Respond) http.handle(FakeRequest.post("/a", "k2", "y"), app)).response();
      assertThat(first.status()).isEqualTo(503);
      assertThat(first.firstHeader("Retry-After")).hasValue("7");
      assertThat(first.bodyAsUtf8()).contains("\"code\":\"idempotency_store_unavailable\"");
      assertThat(second).isSameAs(first);
      assertThat(runs).hasValue(0);
    }
  }

  /** Stored headers are matched ignoring case, however the application spelled them. */
  @Test
  void storedHeadersMatchIgnoringCase() throws Exception {
    IdempotencyHttp http =
        IdempotencyHttp.builder(engine).storedHeaders("content-TYPE", "X-Kept").build();
    Downstream spelled =
        (body, execution) ->
            StoredResponse.of(
                200,
                Map.of(
                    "CONTENT-type",
                    List.of("text/plain"),
                    "x-kept",
                    List.of("1"),
                    "X-Dropped",
                    List.of("2")),
                body);
    http.handle(FakeRequest.post("/a", "k", "x"), spelled);
    StoredResponse replay =
        ((HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), spelled)).response();
    assertThat(replay.headers()).containsOnlyKeys("CONTENT-type", "x-kept", "Idempotent-Replayed");
  }

  /**
   * RELEASE_KEY with a release that fails: the key stays in flight, and the engine's log says so
   * instead of claiming it was released.
   */
  @Test
  void oversizedResponseWhoseReleaseFailsIsNotLoggedAsReleased() throws Exception {
    InMemoryKeyStore memory = new InMemoryKeyStore();
    KeyStore releaseFails =
        (KeyStore)
            Proxy.newProxyInstance(
                KeyStore.class.getClassLoader(),
                new Class<?>[] {KeyStore.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("release")) {
                    throw new StoreUnavailableException("down during release");
                  }
                  try {
                    return method.invoke(memory, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            logged.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger logger = Logger.getLogger(IdempotencyEngine.class.getName());
    logger.addHandler(capture);
    try (IdempotencyEngine e = IdempotencyEngine.builder(releaseFails).build()) {
      IdempotencyHttp http =
          IdempotencyHttp.builder(e)
              .maxStoredResponseBytes(1024)
              .oversizedResponse(OversizedResponse.RELEASE_KEY)
              .build();
      Downstream big = (body, execution) -> StoredResponse.of(200, new byte[2000]);
      HttpResult.Respond r =
          (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), big);
      assertThat(r.response().bodyLength()).isEqualTo(2000);
      assertThat(memory.lookup(dev.idempotency.RecordId.of("alice", "k")).orElseThrow().state())
          .isEqualTo(dev.idempotency.KeyState.IN_FLIGHT);
      assertThat(logged)
          .extracting(LogRecord::getMessage)
          .anySatisfy(m -> assertThat(m).contains("could not release").contains("stays in flight"))
          .noneSatisfy(m -> assertThat(m).contains("key released"));
    } finally {
      logger.removeHandler(capture);
    }
  }

  /**
   * A REQUIRED rule for {@code /payments} also guards {@code /payments/}: without a key it is
   * refused, not run.
   */
  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void requiredRuleGuardsTheTrailingSlashSpelling() throws Exception {
    IdempotencyHttp http =
        IdempotencyHttp.builder(engine)
            .endpoint(EndpointRule.of(KeyRequirement.REQUIRED, "/payments", "POST"))
            .build();
    for (String path : List.of("/payments/", "//payments", "/PAYMENTS")) {
      HttpResult r = http.handle(FakeRequest.post(path, null, "{}"), app);
      assertThat(r).as("POST " + path + " without a key").isInstanceOf(HttpResult.Respond.class);
      assertThat(body(r)).contains("\"code\":\"idempotency_key_missing\"");
    }
    assertThat(runs)
        .as("the application must not run for a guarded path without a key")
        .hasValue(0);
    assertThat(http.handle(FakeRequest.post("/payments/1", null, "{}"), app))
        .isInstanceOf(HttpResult.PassThrough.class);
  }

  /**
   * A rule's methods are upper-cased when it is built ({@code "post"} means POST), and a request's
   * method matches them ignoring case; a method named twice in two cases is one method.
   */
  @Test
  void aRuleMethodInLowerCaseMeansTheUpperCaseMethod() throws Exception {
    EndpointRule rule =
        EndpointRule.of(KeyRequirement.REQUIRED, "/payments", "post", "Patch", "PATCH");
    assertThat(rule.methods()).containsExactlyInAnyOrder("POST", "PATCH");
    assertThat(rule.matches("POST", "/payments")).isTrue();
    assertThat(rule.matches("post", "/payments")).isTrue();
    assertThat(rule.matches("PUT", "/payments")).isFalse();
    assertThatThrownBy(() -> EndpointRule.of(KeyRequirement.REQUIRED, "/a", "get"))
        .hasMessageContaining("safe");

    IdempotencyHttp http = IdempotencyHttp.builder(engine).endpoint(rule).build();
    assertThat(body(http.handle(FakeRequest.post("/payments", null, "{}"), app)))
        .contains("\"code\":\"idempotency_key_missing\"");
    assertThat(runs).hasValue(0);
  }

  /**
   * The status endpoint takes a key percent-encoded with exactly two hex digits per escape: a sign
   * or another script's digit is no hex digit, so such a URL is refused rather than read as some
   * other key.
   */
  @Test
  void statusEndpointRefusesMalformedPercentEncoding() throws Exception {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).inFlightAccepted("/status").build();
    for (String query :
        List.of("key=a%+1", "key=a%-1", "key=a%4", "key=a%\uff14\uff11", "key=a%g1")) {
      HttpResult r = http.handle(new FakeRequest("GET", "/status", query), app);
      assertThat(((HttpResult.Respond) r).response().status()).as(query).isEqualTo(400);
      assertThat(body(r)).as(query).contains("\"rule\":\"malformed_percent_encoding\"");
    }
    HttpResult wellFormed = http.handle(new FakeRequest("GET", "/status", "key=a%2Fb"), app);
    assertThat(((HttpResult.Respond) wellFormed).response().status())
        .as("a well-formed key nobody sent")
        .isEqualTo(404);
    assertThat(runs).hasValue(0);
  }

  /**
   * The 202 of a key in flight points at the status endpoint with the key percent-encoded, and that
   * URL finds the request: while it runs, and its stored response once it completed.
   */
  @Test
  void acceptedStatusUrlFindsTheRequest() throws Exception {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).inFlightAccepted("/status").build();
    String key = "k/1?&=%+~";
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Downstream held = heldUntil(entered, release);
    ExecutorService first = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResult> running =
          first.submit(() -> http.handle(FakeRequest.post("/a", key, "x"), held));
      assertThat(entered.await(30, TimeUnit.SECONDS)).as("the first request runs").isTrue();
      StoredResponse accepted =
          ((HttpResult.Respond) http.handle(FakeRequest.post("/a", key, "x"), app)).response();
      assertThat(accepted.status()).isEqualTo(202);
      String location = accepted.firstHeader("Location").orElseThrow();
      assertThat(location).isEqualTo("/status?key=k%2F1%3F%26%3D%25%2B~");
      FakeRequest status =
          new FakeRequest("GET", "/status", location.substring(location.indexOf('?') + 1));
      assertThat(((HttpResult.Respond) http.handle(status, app)).response().status())
          .isEqualTo(202);
      release.countDown();
      assertThat(running.get(30, TimeUnit.SECONDS)).isInstanceOf(HttpResult.Respond.class);
      HttpResult.Respond done = (HttpResult.Respond) http.handle(status, app);
      assertThat(done.disposition()).isEqualTo(HttpResult.Disposition.STATUS);
      assertThat(done.response().status()).isEqualTo(200);
      assertThat(done.response().firstHeader(IdempotencyHttp.REPLAYED_HEADER)).hasValue("true");
    } finally {
      release.countDown();
      first.shutdownNow();
      assertThat(first.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(runs).hasValue(1);
  }

  /**
   * {@code inFlightConflict()} after {@code inFlightAccepted(…)} undoes it: a key in flight gets
   * 409 with {@code Retry-After} and no {@code Location}, and the status path is no endpoint any
   * more.
   */
  @Test
  void inFlightConflictAfterInFlightAcceptedAnswers409AndServesNoStatusEndpoint() throws Exception {
    IdempotencyHttp http =
        IdempotencyHttp.builder(engine).inFlightAccepted("/status").inFlightConflict().build();
    assertThat(http.inFlightResponse()).isEqualTo(InFlightResponse.CONFLICT);
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Downstream held = heldUntil(entered, release);
    ExecutorService first = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResult> running =
          first.submit(() -> http.handle(FakeRequest.post("/a", "k-conflict", "x"), held));
      assertThat(entered.await(30, TimeUnit.SECONDS)).as("the first request runs").isTrue();
      StoredResponse conflict =
          ((HttpResult.Respond) http.handle(FakeRequest.post("/a", "k-conflict", "x"), app))
              .response();
      assertThat(conflict.status()).isEqualTo(409);
      assertThat(conflict.firstHeader("Retry-After")).isPresent();
      assertThat(conflict.firstHeader("Location")).isEmpty();
      HttpResult status = http.handle(new FakeRequest("GET", "/status", "key=k-conflict"), app);
      assertThat(status)
          .as(
              "a GET on the status path passes through to the application, as any unguarded request")
          .isInstanceOf(HttpResult.PassThrough.class);
      release.countDown();
      assertThat(running.get(30, TimeUnit.SECONDS)).isInstanceOf(HttpResult.Respond.class);
    } finally {
      release.countDown();
      first.shutdownNow();
      assertThat(first.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(runs).hasValue(1);
  }

  /** The application, entered and then held until {@code release} (for at most 30 s). */
  private Downstream heldUntil(CountDownLatch entered, CountDownLatch release) {
    return (body, execution) -> {
      entered.countDown();
      assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
      return app.run(body, execution);
    };
  }
}
