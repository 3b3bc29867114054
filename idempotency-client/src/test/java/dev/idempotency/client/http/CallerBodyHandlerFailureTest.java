package dev.idempotency.client.http;

import static dev.idempotency.client.http.ScriptedServer.problem;
import static dev.idempotency.client.http.ScriptedServer.respond;
import static dev.idempotency.client.http.ScriptedServer.respondThenAbort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.testing.RecordingLogger;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A failure of the caller's own body handler is the caller's, not the connection's: it propagates
 * unchanged after one attempt, and a keyed POST is not sent again. A connection lost while the body
 * is read is still retried. Counted at the wire of a real server on 127.0.0.1.
 */
@Timeout(value = 20, threadMode = ThreadMode.SEPARATE_THREAD)
class CallerBodyHandlerFailureTest {
  private final ScriptedServer server = ScriptedServer.start();
  private final HttpClient http = ScriptedServer.http11Client();
  private final FakeTime time = new FakeTime();
  private final RetryingHttpClient client =
      RetryingHttpClient.builder(http)
          .policy(
              RetryPolicy.builder()
                  .environment(
                      time.environment().withRandom(() -> 0.5).withLogger(new RecordingLogger()))
                  .build())
          .build();

  @TempDir static Path dir;

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpCall keyedPost() {
    return client
        .call(
            HttpRequest.newBuilder(server.uri("/orders"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build())
        .idempotencyKey(OperationKey.forEvent("order", "4711"));
  }

  /** A way for the caller's handler to fail, and the throwable the caller must get back. */
  record Failing(String name, BodyHandler<String> handler, Throwable expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Failing> failingHandlers() {
    IllegalStateException inApply =
        new IllegalStateException("the caller's handler rejects the response");
    IllegalStateException inOnNext =
        new IllegalStateException("the caller's subscriber fails on a body part");
    IllegalArgumentException inMapping =
        new IllegalArgumentException("the caller's mapping cannot parse the body");
    AssertionError error = new AssertionError("the caller's subscriber throws an Error");
    return Stream.of(
        new Failing(
            "BodyHandler.apply throws",
            info -> {
              throw inApply;
            },
            inApply),
        new Failing("BodySubscriber.onNext throws", info -> new ThrowingOnNext(inOnNext), inOnNext),
        new Failing(
            "a mapping function throws",
            info ->
                BodySubscribers.mapping(
                    BodySubscribers.ofString(StandardCharsets.UTF_8),
                    (Function<String, String>)
                        s -> {
                          throw inMapping;
                        }),
            inMapping),
        new Failing("an Error in onNext", info -> new ThrowingOnNext(error), error));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failingHandlers")
  void aFailingHandlerPropagatesUnchangedAfterOneAttempt(Failing failing) {
    server.then(respond(201, "created"));
    Throwable thrown = catchThrowable(() -> keyedPost().send(failing.handler()));
    assertThat(thrown)
        .as("the caller's own exception, unchanged (not wrapped, not a RetriesExhaustedException)")
        .isSameAs(failing.expected());
    assertThat(server.wireCount())
        .as("a bug in the caller's handler must not re-send the POST")
        .isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failingHandlers")
  void aFailingHandlerFailsTheAsyncFutureUnchangedAfterOneAttempt(Failing failing) {
    server.then(respond(201, "created"));
    ExecutionException e =
        catchThrowableOfType(
            () -> keyedPost().sendAsync(failing.handler()).get(15, TimeUnit.SECONDS),
            ExecutionException.class);
    assertThat(e).as("the future must fail with the caller's exception").isNotNull();
    assertThat(e.getCause()).isSameAs(failing.expected());
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /**
   * The body of a retryable 503 is replayed into the caller's subscriber; its failure there still
   * ends the call.
   */
  @Test
  void aHandlerFailingOnAReplayedProblemBodyIsNotRetried() {
    server.then(problem(503, "idempotency_store_unavailable", true, null), respond(201, "created"));
    IllegalStateException boom =
        new IllegalStateException("the caller's subscriber fails on the problem body");
    Throwable thrown = catchThrowable(() -> keyedPost().send(info -> new ThrowingOnNext(boom)));
    assertThat(thrown).isSameAs(boom);
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /**
   * A handler's own I/O failure (here: the JDK's file handler writing into a directory that does
   * not exist) is the caller's too: it propagates as it is, not as a lost connection that re-sends
   * the POST.
   */
  @Test
  void aHandlersOwnIoFailureIsNotMistakenForALostConnection() {
    server.then(respond(201, "created"));
    Throwable thrown =
        catchThrowable(
            () -> keyedPost().send(BodyHandlers.ofFile(dir.resolve("missing/body.txt"))));
    assertThat(thrown).isInstanceOf(NoSuchFileException.class);
    assertThat(server.wireCount()).isEqualTo(1);
  }

  /**
   * A connection cut mid-body is still a lost connection, whatever handler reads it: retried with
   * the same key.
   */
  @Test
  void aConnectionLostMidBodyIsStillRetriedThroughTheCallersHandler() throws Exception {
    server.then(respondThenAbort(), respond(201, "created"));
    IdempotentResponse<String> response =
        keyedPost()
            .send(
                info ->
                    BodySubscribers.mapping(
                        BodySubscribers.ofString(StandardCharsets.UTF_8), String::trim));
    assertThat(response.body()).isEqualTo("created");
    assertThat(server.wireCount()).isEqualTo(2);
  }

  /** A subscriber that throws from onNext. */
  private static final class ThrowingOnNext implements BodySubscriber<String> {
    private final BodySubscriber<String> delegate =
        BodySubscribers.ofString(StandardCharsets.UTF_8);
    private final Throwable failure;

    ThrowingOnNext(Throwable failure) {
      this.failure = failure;
    }

    @Override
    public CompletionStage<String> getBody() {
      return delegate.getBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      delegate.onSubscribe(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      if (failure instanceof RuntimeException r) {
        throw r;
      }
      throw (Error) failure;
    }

    @Override
    public void onError(Throwable throwable) {
      delegate.onError(throwable);
    }

    @Override
    public void onComplete() {
      delegate.onComplete();
    }
  }
}
