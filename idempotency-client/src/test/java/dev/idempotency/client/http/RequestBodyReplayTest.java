package dev.idempotency.client.http;

import static dev.idempotency.client.http.ScriptedServer.dropConnection;
import static dev.idempotency.client.http.ScriptedServer.respond;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idempotency.client.FakeTime;
import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetriesExhaustedException;
import dev.idempotency.client.RetryEnvironment;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.StopReason;
import dev.idempotency.testing.RecordingLogger;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Request bodies that can be read only once ({@code ofInputStream} over one stream, an iterator, a
 * caller's own publisher) are sent whole on every attempt: a retry under the same key must carry
 * the same bytes, or the server runs an empty request under that key (or answers 409 for a charge
 * that happened). Bodies are counted at the wire.
 */
class RequestBodyReplayTest {
  private static final String PAYLOAD = "{\"amount\":100,\"currency\":\"EUR\"}";

  private final ScriptedServer server = ScriptedServer.start();
  private final FakeTime time = new FakeTime();

  @AfterEach
  void stop() {
    server.close();
  }

  private RetryingHttpClient client() {
    return RetryingHttpClient.builder(ScriptedServer.http11Client())
        .policy(
            RetryPolicy.builder()
                .environment(time.environment().withLogger(new RecordingLogger()))
                .build())
        .build();
  }

  private HttpRequest post(BodyPublisher body) {
    return HttpRequest.newBuilder(server.uri("/charges"))
        .POST(body)
        .header("Content-Type", "application/json")
        .build();
  }

  /** One stream, handed out by a supplier that cannot give another. */
  private static BodyPublisher oneStream(AtomicInteger opened) {
    InputStream only = new ByteArrayInputStream(PAYLOAD.getBytes(StandardCharsets.UTF_8));
    return BodyPublishers.ofInputStream(
        () -> {
          opened.incrementAndGet();
          return only;
        });
  }

  private void assertTheWholeBodyOnEveryAttempt(int attempts) {
    assertThat(server.received())
        .hasSize(attempts)
        .allSatisfy(r -> assertThat(r.bodyText()).isEqualTo(PAYLOAD))
        .extracting(ScriptedServer.Received::idempotencyKey)
        .containsOnly("charge-7");
  }

  @Test
  void aOneShotInputStreamIsSentWholeOnTheRetry() throws Exception {
    server.then(dropConnection(), respond(201, "charged"));
    AtomicInteger opened = new AtomicInteger();

    IdempotentResponse<String> response =
        client()
            .call(post(oneStream(opened)))
            .idempotencyKey(OperationKey.of("charge-7"))
            .send(BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.attempts()).isEqualTo(2);
    assertTheWholeBodyOnEveryAttempt(2);
    assertThat(opened).as("the caller's stream is read once").hasValue(1);
  }

  @Test
  void aOneShotInputStreamIsSentWholeOnTheRetryOfSendAsync() throws Exception {
    server.then(dropConnection(), respond(201, "charged"));

    IdempotentResponse<String> response =
        client()
            .call(post(oneStream(new AtomicInteger())))
            .idempotencyKey(OperationKey.of("charge-7"))
            .sendAsync(BodyHandlers.ofString())
            .get(30, TimeUnit.SECONDS);

    assertThat(response.statusCode()).isEqualTo(201);
    assertTheWholeBodyOnEveryAttempt(2);
  }

  /** {@code ofByteArrays} over an iterable that gives one iterator only, then an empty one. */
  @Test
  void aOneShotIterableIsSentWholeOnEveryAttempt() throws Exception {
    server.then(dropConnection(), dropConnection(), respond(201, "charged"));
    byte[] bytes = PAYLOAD.getBytes(StandardCharsets.UTF_8);
    AtomicInteger iterations = new AtomicInteger();
    Iterable<byte[]> once =
        () -> {
          Iterator<byte[]> chunks =
              iterations.getAndIncrement() == 0
                  ? List.of(
                          java.util.Arrays.copyOfRange(bytes, 0, 10),
                          java.util.Arrays.copyOfRange(bytes, 10, bytes.length))
                      .iterator()
                  : List.<byte[]>of().iterator();
          return chunks;
        };

    IdempotentResponse<String> response =
        client()
            .call(post(BodyPublishers.ofByteArrays(once)))
            .idempotencyKey(OperationKey.of("charge-7"))
            .send(BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(201);
    assertTheWholeBodyOnEveryAttempt(3);
  }

  /**
   * A body the caller's stream fails to produce is the caller's failure: it propagates unchanged,
   * and nothing reaches the server.
   */
  @Test
  void aStreamThatFailsIsNeverSentAndItsFailurePropagates() {
    IOException broken = new IOException("disk gone");
    BodyPublisher failing =
        BodyPublishers.ofInputStream(
            () ->
                new InputStream() {
                  @Override
                  public int read() throws IOException {
                    throw broken;
                  }
                });

    Throwable thrown =
        catchThrowable(
            () ->
                client()
                    .call(post(failing))
                    .idempotencyKey(OperationKey.of("charge-7"))
                    .send(BodyHandlers.ofString()));

    assertThat(thrown).isSameAs(broken);
    assertThat(server.wireCount()).isZero();
  }

  /**
   * A caller's publisher that never completes cannot hold the call past its deadline (real time,
   * 300 ms): the call stops with {@code DEADLINE}, blocking or not, and nothing was sent.
   */
  @Test
  void aBodyThatNeverEndsIsBoundedByTheDeadline() throws Exception {
    BodyPublisher endless =
        BodyPublishers.fromPublisher(
            subscriber ->
                subscriber.onSubscribe(
                    new Flow.Subscription() {
                      private boolean first = true;

                      @Override
                      public void request(long n) {
                        if (first) {
                          first = false;
                          subscriber.onNext(ByteBuffer.wrap(new byte[] {'{'}));
                        }
                      }

                      @Override
                      public void cancel() {}
                    }));
    RetryingHttpClient client =
        RetryingHttpClient.builder(ScriptedServer.http11Client())
            .policy(
                RetryPolicy.builder()
                    .deadline(Duration.ofMillis(300))
                    .attemptTimeout(Duration.ofMillis(300))
                    .environment(RetryEnvironment.system().withLogger(new RecordingLogger()))
                    .build())
            .build();

    RetriesExhaustedException blocking =
        catchThrowableOfType(
            RetriesExhaustedException.class,
            () -> client.call(post(endless)).send(BodyHandlers.ofString()));
    ExecutionException async =
        catchThrowableOfType(
            ExecutionException.class,
            () ->
                client
                    .call(post(endless))
                    .sendAsync(BodyHandlers.ofString())
                    .get(30, TimeUnit.SECONDS));

    assertThat(blocking.reason()).isEqualTo(StopReason.DEADLINE);
    assertThat(async.getCause())
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            s -> assertThat(s.reason()).isEqualTo(StopReason.DEADLINE));
    assertThat(server.wireCount()).isZero();
  }
}
