package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Scope;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The handler without a server: defaults, validation messages, and the order of its checks. */
class IdempotencyHttpTest {
  private final IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryKeyStore()).build();
  private final AtomicInteger runs = new AtomicInteger();
  private final Downstream app = body -> {
    runs.incrementAndGet();
    return StoredResponse.of(200, Map.of("Content-Type", List.of("text/plain"), "Set-Cookie", List.of("s=1")),
        body);
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
    assertThat(http.endpoints()).singleElement().satisfies(r -> {
      assertThat(r.methods()).containsExactlyInAnyOrder("POST", "PATCH");
      assertThat(r.pathPattern()).isEqualTo("/**");
      assertThat(r.requirement()).isEqualTo(KeyRequirement.REQUIRED);
    });
    assertThat(http.mismatchStatus()).isEqualTo(MismatchStatus.CONFLICT);
    assertThat(http.inFlightMode()).isEqualTo(InFlightMode.CONFLICT);
    assertThat(http.storedHeaders()).contains("Content-Type", "Location", "ETag").doesNotContain("Set-Cookie");
    assertThat(http.storesSetCookie()).isFalse();
    assertThat(http.maxRequestBodyBytes()).isEqualTo(1 << 20);
    assertThat(http.maxStoredResponseBytes()).isEqualTo(1 << 20);
    assertThat(http.oversizedResponse()).isEqualTo(OversizedResponse.STORE_MARKER);
    assertThat(http.anonymousScope()).isEmpty();
  }

  /** Every bad setting is refused at once, with a message that names it. */
  @Test
  void invalidSettingsAreRefusedNamingTheSetting() {
    IdempotencyHttp.Builder b = IdempotencyHttp.builder(engine);
    assertThatThrownBy(() -> b.headerName("Idem Key")).hasMessageContaining("headerName");
    assertThatThrownBy(() -> b.maxRequestBodyBytes(-1)).hasMessageContaining("maxRequestBodyBytes");
    assertThatThrownBy(() -> b.maxStoredResponseBytes(10)).hasMessageContaining("maxStoredResponseBytes");
    assertThatThrownBy(() -> b.storedHeaders("Content-Type", "set-cookie")).hasMessageContaining("storeSetCookie");
    assertThatThrownBy(() -> b.inFlightAccepted("status/")).hasMessageContaining("statusPath");
    assertThatThrownBy(() -> b.storeUnavailableRetryAfter(Duration.ZERO))
        .hasMessageContaining("storeUnavailableRetryAfter");
    assertThatThrownBy(() -> b.problemTypeBase("not a uri")).hasMessageContaining("problemTypeBase");
    assertThatThrownBy(() -> EndpointRule.of(KeyRequirement.REQUIRED, "/a", "GET")).hasMessageContaining("safe");
    assertThatThrownBy(() -> EndpointRule.of(KeyRequirement.REQUIRED, "a", "POST"))
        .hasMessageContaining("path pattern");
    assertThatThrownBy(() -> EndpointRule.of(KeyRequirement.REQUIRED, "/**/a", "POST")).hasMessageContaining("**");
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

  /** A declared length over the limit is refused without reading; an undeclared one by the bounded read. */
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
    HttpResult r = IdempotencyHttp.builder(engine).anonymousScope(Scope.of("anonymous")).build()
        .handle(anonymous, app);
    assertThat(((HttpResult.Respond) r).disposition()).isEqualTo(HttpResult.Disposition.EXECUTED);
  }

  /** A trusted-header scope resolver reads only the named header. */
  @Test
  void trustedHeaderScope() throws Exception {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).scopeResolver(ScopeResolver.trustedHeader("X-Account"))
        .build();
    FakeRequest a = FakeRequest.post("/a", "k", "{}").header("X-Account", "acct-1");
    FakeRequest b = FakeRequest.post("/a", "k", "{}").header("X-Account", "acct-2");
    http.handle(a, app);
    HttpResult second = http.handle(b, app);
    assertThat(((HttpResult.Respond) second).disposition()).isEqualTo(HttpResult.Disposition.EXECUTED);
    assertThat(runs).hasValue(2);
  }

  /** The live response keeps every header; the stored one only the allowlist, and the replay says so. */
  @Test
  void replayCarriesOnlyAllowlistedHeaders() throws Exception {
    IdempotencyHttp http = IdempotencyHttp.builder(engine).build();
    HttpResult.Respond live = (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), app);
    HttpResult.Respond replay = (HttpResult.Respond) http.handle(FakeRequest.post("/a", "k", "x"), app);
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
    assertThatThrownBy(() -> http.handle(FakeRequest.post("/a", "k", "x"), body -> {
      throw boom;
    })).isInstanceOf(ApplicationFailedException.class).hasCause(boom)
        .satisfies(e -> assertThat(((ApplicationFailedException) e).keyReleased()).isTrue());
  }

  /** Retry-After is whole seconds, rounded up, at least one. */
  @Test
  void retryAfterSeconds() {
    assertThat(IdempotencyHttp.seconds(Duration.ZERO)).isEqualTo("1");
    assertThat(IdempotencyHttp.seconds(Duration.ofMillis(1001))).isEqualTo("2");
    assertThat(IdempotencyHttp.seconds(Duration.ofSeconds(30))).isEqualTo("30");
  }
}
