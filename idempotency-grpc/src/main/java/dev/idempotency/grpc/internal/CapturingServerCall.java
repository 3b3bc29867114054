package dev.idempotency.grpc.internal;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The call a guarded handler answers: it keeps the headers, the message and the closing status and
 * trailers, and sends nothing to the client, so that nothing reaches the client before the answer
 * is stored. The handler may answer on any thread, later than its {@code onHalfClose} returned (an
 * asynchronous handler); {@link #await} waits for the close.
 *
 * @param <ReqT> the request type
 * @param <RespT> the response type
 */
final class CapturingServerCall<ReqT, RespT>
    extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {
  private final CompletableFuture<CapturedCall> closed = new CompletableFuture<>();
  private @Nullable Metadata headers;
  private byte @Nullable [] message;
  private @Nullable RespT messageObject;
  private boolean closeCalled;
  private boolean tooManyResponses;

  CapturingServerCall(ServerCall<ReqT, RespT> call) {
    super(call);
  }

  @Override
  public void request(int numMessages) {
    // the guard read the one request message already and hands it to the handler itself
  }

  @Override
  public synchronized void sendHeaders(Metadata headers) {
    if (closeCalled || this.headers != null) {
      throw new IllegalStateException("sendHeaders has already been called, or the call is closed");
    }
    this.headers = headers;
  }

  @Override
  public void sendMessage(RespT message) {
    byte[] bytes = serialize(message);
    synchronized (this) {
      if (closeCalled || headers == null) {
        throw new IllegalStateException("sendHeaders has not been called, or the call is closed");
      }
      if (this.message == null) {
        this.message = bytes;
        this.messageObject = message;
        return;
      }
      // gRPC's own call ends a unary call that sends a second message with INTERNAL "Too many
      // responses" and returns to the handler; an exception thrown here instead would reach the
      // handler after its side effect, and the key would be released
      this.message = null;
      this.messageObject = null;
      closeCalled = true;
      tooManyResponses = true;
    }
    closed.complete(
        new CapturedCall(
            headers, null, Status.INTERNAL.withDescription("Too many responses"), new Metadata()));
  }

  @Override
  public void close(Status status, Metadata trailers) {
    synchronized (this) {
      if (tooManyResponses) {
        return; // the call ended at the second message; the handler's close comes after it
      }
      if (closeCalled) {
        throw new IllegalStateException("the call is already closed");
      }
      closeCalled = true;
    }
    closed.complete(new CapturedCall(headers, message, status, trailers));
  }

  /** Whether the handler has closed the call (or it ended at a second message). */
  boolean isClosed() {
    return closed.isDone();
  }

  @Override
  public boolean isReady() {
    return true; // nothing is sent to the transport before the answer is stored: no flow control
  }

  /** The message object the handler sent, for the live answer; null when it sent none. */
  synchronized @Nullable RespT messageObject() {
    return messageObject;
  }

  /**
   * Waits for the handler to close the call.
   *
   * @throws TimeoutException if it did not within {@code bound}
   * @throws InterruptedException if interrupted while waiting
   */
  CapturedCall await(Duration bound) throws TimeoutException, InterruptedException {
    try {
      return closed.get(bound.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the capture never completes exceptionally", e);
    }
  }

  private byte[] serialize(RespT response) {
    try (InputStream in = getMethodDescriptor().streamResponse(response)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("the method's response marshaller failed", e);
    }
  }
}
