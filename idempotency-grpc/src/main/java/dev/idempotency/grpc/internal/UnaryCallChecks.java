package dev.idempotency.grpc.internal;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** What a guarded unary call checks of its thread, its context, its request and its answer. */
final class UnaryCallChecks {
  private UnaryCallChecks() {}

  /**
   * Whether the handler failed with an exception rather than answered with a status: grpc-stub's
   * {@code onError(e)} closes with {@code UNKNOWN} and {@code e} as the cause when {@code e} is no
   * status exception. That is how an asynchronous handler throws, and it is treated as a
   * synchronous throw is: the key is released, so that a transient failure (a lost database
   * connection) is not replayed for the whole replay window. An {@code UNKNOWN} the handler chose
   * (a status exception, or a status without a cause) is an answer, and stored.
   */
  static boolean failedWithAnException(Status status) {
    Throwable cause = status.getCause();
    return status.getCode() == Status.Code.UNKNOWN
        && cause != null
        && !(cause instanceof StatusException)
        && !(cause instanceof StatusRuntimeException);
  }

  /** Whether the call's context was cancelled or its deadline passed: its work must not start. */
  static boolean tooLate(Context context) {
    Deadline deadline = context.getDeadline();
    return context.isCancelled() || (deadline != null && deadline.isExpired());
  }

  /** The request as the method's marshaller writes it: what the fingerprint covers. */
  static <ReqT> byte[] serialize(MethodDescriptor<ReqT, ?> method, ReqT request) {
    try (InputStream in = method.streamRequest(request)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("the method's request marshaller failed", e);
    }
  }

  /**
   * Whether this thread is a Netty event loop's (gRPC's Netty transports run a directExecutor
   * server's calls there): Netty names its threads' class {@code FastThreadLocalThread}, shaded or
   * not. Any thread from Netty's {@code DefaultThreadFactory} is one too, so an application pool
   * built on it is refused as well: a false positive that fails closed, with the ERROR naming it.
   */
  static boolean onTransportThread() {
    for (Class<?> c = Thread.currentThread().getClass(); c != null; c = c.getSuperclass()) {
      if (c.getName().endsWith(".netty.util.concurrent.FastThreadLocalThread")) {
        return true;
      }
    }
    return false;
  }
}
