package dev.idempotency.client.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Request bodies that every attempt can send whole. A {@link BodyPublisher} is subscribed to once
 * per attempt, and only some of them give the same bytes to each subscriber: {@code ofString},
 * {@code ofByteArray}, {@code ofFile} (which reopens its file) and {@code noBody}. Any other
 * publisher ({@code ofInputStream} over one stream, {@code ofByteArrays} over a one-time iterable,
 * a caller's {@code fromPublisher}, a {@code concat} of them) may give nothing to its second
 * subscriber, and a retry under the same key would carry an empty body. So such a body is read into
 * memory once, before the first attempt, and every attempt sends those bytes.
 */
public final class RequestBodies {
  /**
   * The JDK's publishers that give every subscriber the same bytes, matched by name (they are not
   * exported): {@code StringPublisher} extends {@code ByteArrayPublisher}.
   */
  private static final Set<String> REPLAYABLE =
      Set.of(
          "jdk.internal.net.http.RequestPublishers$ByteArrayPublisher",
          "jdk.internal.net.http.RequestPublishers$FilePublisher",
          "jdk.internal.net.http.RequestPublishers$EmptyPublisher");

  private RequestBodies() {}

  /**
   * The request with a body every attempt can send whole: one whose publisher may give nothing to a
   * second subscriber is read into memory now, once, within the call's deadline.
   *
   * @param request the caller's request
   * @param run the call, for its deadline
   * @return the request to send on every attempt
   * @throws dev.idempotency.client.RetriesExhaustedException with {@code DEADLINE} when the body
   *     was not read before the deadline
   * @throws IOException what the caller's publisher failed with, unchanged (so are unchecked ones)
   * @throws InterruptedException if interrupted while the body is read
   */
  public static HttpRequest replayable(HttpRequest request, RetryRun run)
      throws IOException, InterruptedException {
    Optional<BodyPublisher> toBuffer = toBuffer(request);
    if (toBuffer.isEmpty()) {
      return request;
    }
    CompletableFuture<byte[]> read = read(toBuffer.get());
    try {
      return withBody(request, read.get(remainingNanos(run), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      read.cancel(false);
      throw run.deadlinePassed();
    } catch (InterruptedException e) {
      read.cancel(false);
      throw e;
    } catch (ExecutionException e) {
      Throwable failure = callersFailure(e);
      if (failure instanceof IOException io) {
        throw io;
      }
      if (failure instanceof Error error) {
        throw error;
      }
      throw (RuntimeException) failure;
    }
  }

  /**
   * {@link #replayable(HttpRequest, RetryRun)} without blocking: the future completes with the
   * request to send, or exceptionally with the {@code DEADLINE} stop or the publisher's failure.
   */
  public static CompletableFuture<HttpRequest> replayableAsync(HttpRequest request, RetryRun run) {
    Optional<BodyPublisher> toBuffer = toBuffer(request);
    if (toBuffer.isEmpty()) {
      return CompletableFuture.completedFuture(request);
    }
    CompletableFuture<HttpRequest> replayable = new CompletableFuture<>();
    var unused =
        read(toBuffer.get())
            .orTimeout(remainingNanos(run), TimeUnit.NANOSECONDS)
            .whenComplete(
                (body, failure) -> {
                  if (failure == null) {
                    replayable.complete(withBody(request, body));
                  } else if (Classifier.unwrap(failure) instanceof TimeoutException) {
                    replayable.completeExceptionally(run.deadlinePassed());
                  } else {
                    replayable.completeExceptionally(callersFailure(failure));
                  }
                });
    return replayable;
  }

  private static long remainingNanos(RetryRun run) {
    return Math.max(0, run.deadline().remainingNanos());
  }

  /**
   * The body a request's attempts cannot send again as it is: empty for a request without a body,
   * or one whose publisher gives every subscriber the same bytes.
   *
   * @param request the caller's request
   * @return the publisher to read once, if any
   */
  static Optional<BodyPublisher> toBuffer(HttpRequest request) {
    return request.bodyPublisher().filter(p -> !replayable(p));
  }

  private static boolean replayable(BodyPublisher publisher) {
    for (Class<?> c = publisher.getClass(); c != null; c = c.getSuperclass()) {
      if (REPLAYABLE.contains(c.getName())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reads a publisher's body whole. A publisher that reads synchronously (an input stream) does so
   * on the calling thread, within this call; cancelling the returned future (or completing it
   * exceptionally, as {@code orTimeout} does) cancels the subscription.
   *
   * @param publisher the caller's publisher
   * @return the body's bytes, or the publisher's failure
   */
  static CompletableFuture<byte[]> read(BodyPublisher publisher) {
    CompletableFuture<byte[]> done = new CompletableFuture<>();
    publisher.subscribe(
        new Flow.Subscriber<ByteBuffer>() {
          private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

          @Override
          public void onSubscribe(Flow.Subscription subscription) {
            // the stage whenComplete returns holds nothing `done` does not: nobody waits on it
            var unused =
                done.whenComplete(
                    (ignored, failure) -> {
                      if (failure != null) {
                        subscription.cancel();
                      }
                    });
            subscription.request(Long.MAX_VALUE);
          }

          @Override
          public void onNext(ByteBuffer item) {
            synchronized (bytes) {
              byte[] chunk = new byte[item.remaining()];
              item.get(chunk);
              bytes.write(chunk, 0, chunk.length);
            }
          }

          @Override
          public void onError(Throwable failure) {
            done.completeExceptionally(failure);
          }

          @Override
          public void onComplete() {
            synchronized (bytes) {
              done.complete(bytes.toByteArray());
            }
          }
        });
    return done;
  }

  /**
   * The request with {@code body} as its publisher, a replayable one; everything else (headers,
   * timeout, version, expect-continue) as it was.
   */
  static HttpRequest withBody(HttpRequest request, byte[] body) {
    return HttpRequest.newBuilder(request, (name, value) -> true)
        .method(request.method(), HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }

  /**
   * What the caller's publisher failed with, to propagate unchanged: it is the caller's failure (an
   * unreadable file, a broken stream), never a lost connection, and nothing was sent.
   *
   * @param failure as the read's future reported it
   * @return an {@link IOException}, an unchecked exception or an error, to throw as it is
   */
  static Throwable callersFailure(Throwable failure) {
    Throwable t = Classifier.unwrap(failure);
    if (t instanceof UncheckedIOException unchecked && unchecked.getCause() != null) {
      return unchecked.getCause();
    }
    if (t instanceof IOException || t instanceof RuntimeException || t instanceof Error) {
      return t;
    }
    return new IOException("the request body's publisher failed: " + t, t);
  }
}
