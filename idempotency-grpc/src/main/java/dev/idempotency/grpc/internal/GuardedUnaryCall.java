package dev.idempotency.grpc.internal;

import dev.idempotency.Answer;
import dev.idempotency.Fingerprint;
import dev.idempotency.KeyStoreException;
import dev.idempotency.LeaseLostException;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.FingerprintBuilder;
import dev.idempotency.core.OperationFailedException;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.grpc.IdempotencyErrorReason;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One guarded unary call: reads its request, then, on the call's executor, runs the handler through
 * the engine (claim, run, store) or answers from the store, and only then sends anything to the
 * client.
 *
 * @param <ReqT> the request type
 * @param <RespT> the response type
 */
public final class GuardedUnaryCall<ReqT, RespT> extends ServerCall.Listener<ReqT> {
  /** The fingerprint's purpose: its version changes when the fields below change. */
  static final String FINGERPRINT_PURPOSE = "grpc-unary/1";

  private static final System.Logger LOG = System.getLogger(GuardedUnaryCall.class.getName());

  private final ServerCall<ReqT, RespT> call;
  private final Metadata headers;
  private final ServerCallHandler<ReqT, RespT> next;
  private final RecordId id;
  private final GuardSettings settings;

  private @Nullable ReqT request;
  private boolean secondMessage;
  // set and read on the call's serialized listener thread, and by the handler's thread only
  // through the capture
  private ServerCall.@Nullable Listener<ReqT> handler;
  private @Nullable CapturingServerCall<ReqT, RespT> capture;
  private @Nullable CapturedCall answer;

  /**
   * A guarded call; the caller has checked the key and resolved the scope.
   *
   * @param call the client's call
   * @param headers its metadata
   * @param next the handler
   * @param id the record: scope and key
   * @param settings the interceptor's settings
   */
  public GuardedUnaryCall(
      ServerCall<ReqT, RespT> call,
      Metadata headers,
      ServerCallHandler<ReqT, RespT> next,
      RecordId id,
      GuardSettings settings) {
    this.call = call;
    this.headers = headers;
    this.next = next;
    this.id = id;
    this.settings = settings;
    // two, as grpc-stub's unary handler asks: a second message is a broken client, refused below
    call.request(2);
  }

  @Override
  public void onMessage(ReqT message) {
    if (request == null) {
      request = message;
    } else {
      secondMessage = true;
    }
  }

  @Override
  public void onHalfClose() {
    ReqT req = request;
    if (req == null || secondMessage) {
      call.close(
          Status.INTERNAL.withDescription(
              req == null ? "Half-closed without a request" : "Too many requests"),
          new Metadata());
      return;
    }
    if (UnaryCallChecks.onTransportThread()) {
      LOG.log(
          System.Logger.Level.ERROR,
          "IdempotencyServerInterceptor runs on a transport thread ("
              + Thread.currentThread().getName()
              + "): the server was built with directExecutor(), but the binding blocks on the key"
              + " store and the handler; give the server an executor");
      refuse(
          Refusals.of(
              IdempotencyErrorReason.IDEMPOTENCY_BLOCKING_EXECUTOR_REQUIRED,
              "the server runs calls on its transport threads; idempotent calls need an executor",
              Map.of(),
              null));
      return;
    }
    Context context = Context.current();
    if (refusedAsTooLate(context)) {
      return;
    }
    MethodDescriptor<ReqT, RespT> method = call.getMethodDescriptor();
    Fingerprint fingerprint =
        FingerprintBuilder.forPurpose(FINGERPRINT_PURPOSE)
            .add(method.getFullMethodName())
            .add(UnaryCallChecks.serialize(method, req))
            .build();
    WaitBound bound = new WaitBound();
    if (settings.engine().config().inFlightPolicy().waits()) {
      context.addListener(bound, Runnable::run);
    }
    Outcome outcome;
    try {
      outcome =
          settings
              .engine()
              .execute(
                  id,
                  fingerprint,
                  Work.stepped(execution -> run(execution, bound, req)),
                  bound.cancellation());
    } catch (InterruptedException e) {
      // not the binding's doing (WaitBound never interrupts): the server's executor is shutting
      // down; nothing ran
      Thread.currentThread().interrupt();
      if (!refusedAsTooLate(context)) {
        call.close(
            Status.UNAVAILABLE.withDescription(
                "the server is shutting down; nothing was processed"),
            new Metadata());
      }
      return;
    } catch (OperationFailedException e) {
      answerFailed(e, context);
      return;
    } catch (RuntimeException e) {
      // the store, or the engine over it, failed outside the handler: before it ran (the claim), at
      // a fenced write it made (another owner took the key over), or after it answered (the
      // completion: the key stays in flight, or another owner's answer is the stored one)
      if (answer != null) {
        LOG.log(
            System.Logger.Level.WARNING,
            "the handler of "
                + id
                + " ran, but its answer could not be stored"
                + (e instanceof LeaseLostException ? ": another owner took the key over" : "")
                + "; the caller gets the live answer",
            e);
        sendLive();
      } else {
        refuse(StoreErrorAnswers.answer("the call of " + id, e, false, settings));
      }
      return;
    } finally {
      context.removeListener(bound);
    }
    if (outcome instanceof Outcome.InFlightConflict && refusedAsTooLate(context)) {
      return; // the wait ended by the call's deadline or cancellation (WaitBound): nothing ran
    }
    answer(outcome);
  }

  private void answer(Outcome outcome) {
    if (outcome instanceof Outcome.Executed) {
      sendLive();
    } else if (outcome instanceof Outcome.Replayed replayed) {
      Optional<String> notStored = replayed.response().notStoredReason();
      if (notStored.isPresent()) {
        // the engine's marker: the handler ran, but the store could not keep its answer (too
        // large for the store, or refused by it); the reason may hold the store's own words
        LOG.log(
            System.Logger.Level.DEBUG,
            "replaying the not-stored marker of {0}: {1}",
            id,
            notStored.get());
        refuse(Refusals.notStored());
      } else {
        replay(replayed.response());
      }
    } else if (outcome instanceof Outcome.Mismatch) {
      refuse(
          Refusals.of(
              IdempotencyErrorReason.IDEMPOTENCY_KEY_REUSED,
              "the idempotency key was used before for another request",
              Map.of("method", call.getMethodDescriptor().getFullMethodName()),
              null));
    } else if (outcome instanceof Outcome.InFlightConflict inFlight) {
      refuse(
          Refusals.of(
              IdempotencyErrorReason.IDEMPOTENCY_REQUEST_IN_FLIGHT,
              "a request with this idempotency key is still in progress",
              Map.of(),
              inFlight.retryAfter()));
    } else {
      refuse(
          Refusals.of(
              IdempotencyErrorReason.IDEMPOTENCY_STORE_UNAVAILABLE,
              "the idempotency key store is unavailable; nothing was processed",
              Map.of(),
              settings.storeUnavailableRetryAfter()));
    }
  }

  /**
   * The engine's operation: starts the handler with the request, waits for its answer, and says
   * what of it is stored: the encoded answer; the not-stored marker in place of one over {@code
   * maxStoredResponseBytes}; nothing (the key released) for a status the binding does not store.
   * The caller gets the live answer in every case.
   */
  private Answer run(dev.idempotency.Execution execution, WaitBound bound, ReqT req)
      throws InterruptedException, TimeoutException, DeadlinePassedException {
    if (!bound.start() || UnaryCallChecks.tooLate(Context.current())) {
      throw new DeadlinePassedException();
    }
    CapturingServerCall<ReqT, RespT> captured = new CapturingServerCall<>(call);
    capture = captured;
    Context withExecution = Context.current().withValue(settings.executionKey(), execution);
    Context previous = withExecution.attach();
    try {
      ServerCall.Listener<ReqT> started = next.startCall(captured, headers);
      handler = started;
      started.onReady();
      started.onMessage(req);
      started.onHalfClose();
    } catch (Throwable thrown) {
      // grpc-stub's unary handler lets an exception out of onHalfClose even after the handler
      // answered; without the binding the client would have that answer, so it is stored
      if (!captured.isClosed()) {
        throw thrown; // it threw before answering: the engine releases the key
      }
      LOG.log(
          System.Logger.Level.WARNING,
          "the handler of "
              + id
              + " threw after it had closed the call; its answer is stored and sent",
          thrown);
    } finally {
      withExecution.detach(previous);
    }
    CapturedCall result;
    try {
      result = captured.await(settings.engine().config().maxOperationTime());
    } catch (TimeoutException e) {
      throw new TimeoutException(
          "the handler did not close the call within maxOperationTime ("
              + settings.engine().config().maxOperationTime()
              + ")");
    }
    answer = result;
    boolean storedCode =
        !UnaryCallChecks.failedWithAnException(result.status())
            && settings.storedCodes().contains(result.status().getCode());
    StoredResponse encoded;
    try {
      encoded = StoredCallCodec.encode(result, settings.storedMetadataKeys());
    } catch (IllegalArgumentException unstorable) {
      // metadata the stored form cannot hold (a value with a line break): the handler ran, so
      // releasing the key would let a retry run it again; a stored code keeps the marker instead
      return unencodable(result, storedCode, unstorable);
    }
    if (!storedCode) {
      return Answer.released(
          encoded, "status " + result.status().getCode() + " is not stored (storedCodes)");
    }
    if (encoded.bodyLength() > settings.maxStoredResponseBytes()) {
      // the engine's policy judges the answer sent, not the marker's own status
      return Answer.storedAs(
          encoded,
          Refusals.notStoredMarker(
              encoded.status(), encoded.bodyLength(), settings.maxStoredResponseBytes()));
    }
    return encoded;
  }

  private Answer unencodable(
      CapturedCall result, boolean storedCode, IllegalArgumentException unstorable) {
    Status.Code code = result.status().getCode();
    StoredResponse sent = StoredResponse.of(StoredCallCodec.httpStatusOf(code), new byte[0]);
    if (!storedCode) {
      return Answer.released(sent, "status " + code + " is not stored (storedCodes)");
    }
    LOG.log(
        System.Logger.Level.WARNING,
        "the answer of "
            + id
            + " ("
            + code
            + ") cannot be stored; a retry gets the not-stored marker",
        unstorable);
    return Answer.storedAs(
        sent,
        StoredResponse.notStoredMarker(
            sent.status(), "the answer's metadata cannot be stored: " + unstorable.getMessage()));
  }

  private void answerFailed(OperationFailedException e, Context context) {
    Throwable cause = e.getCause();
    KeyStoreException storeError = StoreErrorAnswers.inCauses(cause);
    if (cause instanceof DeadlinePassedException) {
      refusedAsTooLate(context);
    } else if (cause instanceof TimeoutException) {
      call.close(Status.INTERNAL.withDescription(cause.getMessage()), new Metadata());
    } else if (answer != null) {
      // the handler answered, and what failed after it is turning that answer into what the engine
      // stores: the caller gets the answer, as over HTTP
      LOG.log(
          System.Logger.Level.WARNING,
          "could not hand the answer of "
              + id
              + " to the engine to store; "
              + (e.keyReleased()
                  ? "the key was released, and a retry runs the handler again"
                  : "the key stays in flight, and a retry after the lease may run the handler again"),
          cause);
      sendLive();
    } else if (storeError != null) {
      // the handler let out the error of a store call it made (a checkpoint)
      refuse(StoreErrorAnswers.answer("the handler of " + id, storeError, true, settings));
    } else if (cause instanceof RuntimeException runtime) {
      throw runtime; // as without the binding: gRPC answers UNKNOWN; the key was released
    } else if (cause instanceof Error error) {
      throw error;
    } else {
      call.close(Status.UNKNOWN.withCause(cause), new Metadata());
    }
  }

  private void sendLive() {
    CapturedCall live = answer;
    CapturingServerCall<ReqT, RespT> captured = capture;
    if (live == null || captured == null) {
      throw new IllegalStateException("no live answer to send for " + id);
    }
    Metadata liveHeaders = live.headers();
    if (liveHeaders != null) {
      call.sendHeaders(liveHeaders);
    }
    RespT message = captured.messageObject();
    if (message != null) {
      call.sendMessage(message);
    }
    call.close(live.status(), live.trailers());
  }

  private void replay(StoredResponse stored) {
    CapturedCall replayed;
    @Nullable RespT message;
    try {
      replayed = StoredCallCodec.decode(stored);
      byte[] bytes = replayed.message();
      // parsed before anything is sent: a message the current response type cannot read (the
      // type changed across a deploy) is still answered with this INTERNAL
      message =
          bytes == null
              ? null
              : call.getMethodDescriptor().parseResponse(new ByteArrayInputStream(bytes));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "cannot replay " + id, e);
      call.close(
          Status.INTERNAL.withDescription("the stored answer of this key cannot be replayed"),
          new Metadata());
      return;
    }
    Metadata replayedHeaders = replayed.headers();
    if (replayedHeaders != null || message != null) {
      call.sendHeaders(replayedHeaders != null ? replayedHeaders : new Metadata());
    }
    if (message != null) {
      call.sendMessage(message);
    }
    Metadata trailers = replayed.trailers();
    trailers.put(dev.idempotency.grpc.GrpcIdempotencyMetadata.REPLAYED_TRAILER, "true");
    call.close(replayed.status(), trailers);
  }

  private boolean refusedAsTooLate(Context context) {
    if (!UnaryCallChecks.tooLate(context)) {
      return false;
    }
    Deadline deadline = context.getDeadline();
    if (deadline != null && deadline.isExpired()) {
      refuse(
          Refusals.of(
              IdempotencyErrorReason.IDEMPOTENCY_DEADLINE_PASSED,
              "the call's deadline passed before its work could start; nothing was processed",
              Map.of(),
              null));
    } else {
      call.close(Status.CANCELLED.withDescription("the call was cancelled"), new Metadata());
    }
    return true;
  }

  private void refuse(Refusals.Refusal refusal) {
    call.close(refusal.status(), refusal.trailers());
  }

  @Override
  public void onCancel() {
    ServerCall.Listener<ReqT> started = handler;
    if (started != null) {
      started.onCancel();
    }
  }

  @Override
  public void onComplete() {
    ServerCall.Listener<ReqT> started = handler;
    if (started != null) {
      started.onComplete();
    }
  }

  @Override
  public void onReady() {
    ServerCall.Listener<ReqT> started = handler;
    if (started != null) {
      started.onReady();
    }
  }

  /** The call's deadline passed (or it was cancelled) before the handler could start. */
  private static final class DeadlinePassedException extends Exception {
    private static final long serialVersionUID = 1L;

    DeadlinePassedException() {
      super("the call's deadline passed before the handler started", null, false, false);
    }
  }
}
