package dev.idempotency.grpc;

import static dev.idempotency.grpc.GrpcServers.callerAndKey;

import dev.idempotency.grpc.test.ChargeReply;
import dev.idempotency.grpc.test.ChargeRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * N calls with one key, released together against a server with N call threads: whatever the store,
 * the handler must run once. The handler holds its run until every other call has its answer, so
 * the duplicates meet the key in flight (or, were the claim not atomic, run too).
 */
final class GrpcConcurrencyGate {
  private GrpcConcurrencyGate() {}

  /** What the N calls came to. */
  record Result(int runs, int ok, int inFlight, List<Status.Code> others) {}

  static Result race(GrpcFixture f, int n, String key) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch othersAnswered = new CountDownLatch(n - 1);
    f.payments.gate.set(othersAnswered);
    ChargeRequest held =
        ChargeRequest.newBuilder().setOrderId("race").setAmountCents(100).setHoldMillis(-1).build();
    ExecutorService callers = Executors.newFixedThreadPool(n);
    List<Future<Status.Code>> calls = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        calls.add(
            callers.submit(
                () -> {
                  start.await();
                  try {
                    ChargeReply reply =
                        f.stub(callerAndKey("acct-race", key))
                            .withDeadlineAfter(60, TimeUnit.SECONDS)
                            .charge(held);
                    return reply.getRun() > 0 ? Status.Code.OK : Status.Code.INTERNAL;
                  } catch (StatusRuntimeException e) {
                    othersAnswered.countDown();
                    return e.getStatus().getCode();
                  }
                }));
      }
      start.countDown();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!calls.stream().allMatch(Future::isDone)) {
        if (f.payments.runs("race") > 1) {
          // not atomic: more than one handler holds; let them all finish
          for (int i = 0; i < n; i++) {
            othersAnswered.countDown();
          }
        }
        if (System.nanoTime() > end) {
          throw new AssertionError("the racing calls did not end within 60 s");
        }
        Thread.sleep(5);
      }
      int ok = 0;
      int inFlight = 0;
      List<Status.Code> others = new ArrayList<>();
      for (Future<Status.Code> call : calls) {
        Status.Code code = call.get();
        if (code == Status.Code.OK) {
          ok++;
        } else if (code == Status.Code.ABORTED) {
          inFlight++;
        } else {
          others.add(code);
        }
      }
      return new Result(f.payments.runs("race"), ok, inFlight, others);
    } finally {
      for (int i = 0; i < n; i++) {
        othersAnswered.countDown(); // never leave a held handler behind
      }
      callers.shutdownNow();
      if (!callers.awaitTermination(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("a racing caller did not end");
      }
    }
  }
}
