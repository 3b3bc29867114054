package dev.idempotency.grpc;

import dev.idempotency.Execution;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import dev.idempotency.grpc.test.GetChargeRequest;
import dev.idempotency.grpc.test.LedgerServiceGrpc;
import dev.idempotency.grpc.test.Misbehaviour;
import dev.idempotency.grpc.test.PaymentServiceGrpc;
import dev.idempotency.grpc.test.RecordReply;
import dev.idempotency.grpc.test.RecordRequest;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The payment service under test: counts its runs per order (the side effect a duplicate would
 * repeat), holds or fails on request, answers synchronously or from another thread, and calls the
 * ledger downstream in {@code ChargeAndRecord}.
 */
final class TestPayments extends PaymentServiceGrpc.PaymentServiceImplBase
    implements AutoCloseable {
  /** The trailer {@code DECLINE_WITH_MULTILINE_NOTE} sets. */
  static final Metadata.Key<String> DECLINE_NOTE =
      Metadata.Key.of("x-decline-note", Metadata.ASCII_STRING_MARSHALLER);

  final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  final AtomicInteger runsWithoutExecution = new AtomicInteger();
  final AtomicInteger watchCalls = new AtomicInteger();

  /** While set, a handler with {@code hold_millis} < 0 waits for it (bounded by 30 s). */
  final AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));

  private final ExecutorService answering = Executors.newSingleThreadExecutor();
  private volatile boolean answerFromAnotherThread;
  private volatile LedgerServiceGrpc.LedgerServiceBlockingStub ledger;

  void answerFromAnotherThread(boolean on) {
    answerFromAnotherThread = on;
  }

  void ledger(LedgerServiceGrpc.LedgerServiceBlockingStub ledger) {
    this.ledger = ledger;
  }

  int runs(String orderId) {
    AtomicInteger n = runs.get(orderId);
    return n == null ? 0 : n.get();
  }

  int totalRuns() {
    return runs.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  @Override
  public void charge(ChargeRequest request, StreamObserver<ChargeReply> out) {
    ChargeReply.Builder reply = run(request);
    if (misbehaved(request.getMisbehaviour(), reply.build(), out)) {
      return;
    }
    if (request.getFailWithCode() != 0) {
      Status failure =
          Status.fromCodeValue(request.getFailWithCode()).withDescription("declined: %100 sure");
      answer(() -> out.onError(failure.asRuntimeException()));
      return;
    }
    answer(
        () -> {
          out.onNext(reply.build());
          out.onCompleted();
        });
  }

  /** Ends the run the way {@code misbehaviour} says; false for none. */
  private boolean misbehaved(
      Misbehaviour misbehaviour, ChargeReply reply, StreamObserver<ChargeReply> out) {
    switch (misbehaviour) {
      case THROW_AFTER_ANSWERING -> {
        out.onNext(reply);
        out.onCompleted();
        throw new IllegalStateException("the metrics backend is down");
      }
      case ANSWER_TWICE -> {
        out.onNext(reply);
        out.onNext(reply);
        out.onCompleted();
        return true;
      }
      case CHECKPOINT_AFTER_CHARGING -> {
        IdempotencyServerInterceptor.EXECUTION.get().checkpoint(RecoveryPoint.of("charged"));
        return false;
      }
      case DECLINE_WITH_MULTILINE_NOTE -> {
        Metadata trailers = new Metadata();
        trailers.put(DECLINE_NOTE, "card declined\nby the issuer");
        out.onError(
            Status.FAILED_PRECONDITION.withDescription("declined").asRuntimeException(trailers));
        return true;
      }
      case FAIL_ASYNCHRONOUSLY -> {
        answering.execute(
            () -> out.onError(new IllegalStateException("the database connection broke")));
        return true;
      }
      default -> {
        return false;
      }
    }
  }

  @Override
  public void chargeAndRecord(ChargeRequest request, StreamObserver<ChargeReply> out) {
    ChargeReply.Builder reply = run(request);
    // the ledger call inherits this call's context, and with it the caller's deadline
    RecordReply recorded =
        ledger.record(RecordRequest.newBuilder().setChargeId(reply.getChargeId()).build());
    out.onNext(reply.setLedgerDeadlineMillis(recorded.getDeadlineRemainingMillis()).build());
    out.onCompleted();
  }

  @Override
  public void getCharge(GetChargeRequest request, StreamObserver<ChargeReply> out) {
    out.onNext(ChargeReply.newBuilder().setChargeId(request.getChargeId()).build());
    out.onCompleted();
  }

  @Override
  public void captureCharge(GetChargeRequest request, StreamObserver<ChargeReply> out) {
    int run =
        runs.computeIfAbsent(request.getChargeId(), k -> new AtomicInteger()).incrementAndGet();
    out.onNext(ChargeReply.newBuilder().setChargeId(request.getChargeId()).setRun(run).build());
    out.onCompleted();
  }

  @Override
  public void watchCharges(GetChargeRequest request, StreamObserver<ChargeReply> out) {
    watchCalls.incrementAndGet();
    if (request.getChargeId().equals("unavailable")) {
      out.onError(Status.UNAVAILABLE.withDescription("try again").asRuntimeException());
      return;
    }
    for (int i = 1; i <= 3; i++) {
      out.onNext(ChargeReply.newBuilder().setChargeId(request.getChargeId()).setRun(i).build());
    }
    out.onCompleted();
  }

  private ChargeReply.Builder run(ChargeRequest request) {
    Execution execution = IdempotencyServerInterceptor.EXECUTION.get();
    if (execution == null) {
      runsWithoutExecution.incrementAndGet();
    }
    int run =
        runs.computeIfAbsent(request.getOrderId(), k -> new AtomicInteger()).incrementAndGet();
    hold(request.getHoldMillis());
    return ChargeReply.newBuilder()
        .setChargeId("ch-" + request.getOrderId() + "-" + run)
        .setAmountCents(request.getAmountCents())
        .setRun(run);
  }

  private void hold(long millis) {
    try {
      if (millis > 0) {
        Thread.sleep(millis);
      } else if (millis < 0 && !gate.get().await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while holding", e);
    }
  }

  private void answer(Runnable answer) {
    if (answerFromAnotherThread) {
      answering.execute(
          () -> {
            try {
              Thread.sleep(100); // after the handler method returned
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            answer.run();
          });
    } else {
      answer.run();
    }
  }

  @Override
  public void close() throws InterruptedException {
    answering.shutdownNow();
    if (!answering.awaitTermination(5, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the answering thread did not end");
    }
  }

  /** The downstream ledger: reports the deadline it was called with. */
  static final class Ledger extends LedgerServiceGrpc.LedgerServiceImplBase {
    final AtomicInteger records = new AtomicInteger();

    @Override
    public void record(RecordRequest request, StreamObserver<RecordReply> out) {
      records.incrementAndGet();
      Deadline deadline = Context.current().getDeadline();
      long remaining = deadline == null ? -1 : deadline.timeRemaining(TimeUnit.MILLISECONDS);
      out.onNext(RecordReply.newBuilder().setDeadlineRemainingMillis(remaining).build());
      out.onCompleted();
    }
  }
}
