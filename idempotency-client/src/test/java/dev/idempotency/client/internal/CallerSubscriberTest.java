package dev.idempotency.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A caller's body handler that throws: its failure is reported, and the body's later signals go
 * nowhere.
 */
class CallerSubscriberTest {
  private static final ResponseInfo INFO =
      new ResponseInfo() {
        @Override
        public int statusCode() {
          return 200;
        }

        @Override
        public HttpHeaders headers() {
          return HttpHeaders.of(Map.of(), (name, value) -> true);
        }

        @Override
        public HttpClient.Version version() {
          return HttpClient.Version.HTTP_1_1;
        }
      };

  @Test
  void aHandlerThatThrowsIsTheCallersFailureAndLaterSignalsAreDropped() {
    IllegalStateException thrown = new IllegalStateException("the caller's handler broke");
    BodyHandler<String> handler =
        info -> {
          throw thrown;
        };
    AtomicReference<Throwable> reported = new AtomicReference<>();
    CallerSubscriber<String> subscriber = new CallerSubscriber<>(handler, INFO, reported::set);
    AtomicBoolean cancelled = new AtomicBoolean();

    subscriber.onSubscribe(
        new Flow.Subscription() {
          @Override
          public void request(long n) {}

          @Override
          public void cancel() {
            cancelled.set(true);
          }
        });
    // the connection may still deliver the body's end; with no caller subscriber to give it to, it
    // goes nowhere
    subscriber.onNext(List.of(ByteBuffer.wrap(new byte[] {1})));
    subscriber.onError(new IOException("connection reset"));
    subscriber.onComplete();

    assertThat(reported.get()).isSameAs(thrown);
    assertThat(cancelled).isTrue();
    assertThat(subscriber.getBody().toCompletableFuture()).isCompletedExceptionally();
  }
}
