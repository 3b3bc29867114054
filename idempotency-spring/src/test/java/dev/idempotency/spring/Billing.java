package dev.idempotency.spring;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A message consumer with {@code @Idempotent} methods: each counts the runs of its body, so a test
 * sees how often the work ran, and can hold a run inside its body ({@link #gate}).
 */
public class Billing {
  /** An event as a broker delivers it: the delivery time differs between deliveries. */
  public record OrderPaid(String id, String orderId, long amountCents, String deliveredAt) {}

  /** The work's result. */
  public record Invoice(String number, String orderId, long amountCents) {}

  // read through methods: a test holds the CGLIB proxy, whose own fields are not the bean's
  private final AtomicInteger runs = new AtomicInteger();
  private final CountDownLatch entered = new CountDownLatch(1);
  private volatile CountDownLatch gate;

  /** How many times a body ran. */
  public int runs() {
    return runs.get();
  }

  /** Makes every run of {@link #onOrderPaid} wait for {@code gate} after counting itself. */
  public void hold(CountDownLatch gate) {
    this.gate = gate;
  }

  /** Whether a run of {@link #onOrderPaid} started within 10 s. */
  public boolean awaitEntered() throws InterruptedException {
    return entered.await(10, TimeUnit.SECONDS);
  }

  @Idempotent(
      key = "'invoice-' + #event.id",
      fingerprint = {"#event.orderId", "#event.amountCents"})
  public Invoice onOrderPaid(OrderPaid event) throws InterruptedException {
    int run = runs.incrementAndGet();
    entered.countDown();
    CountDownLatch g = gate;
    if (g != null && !g.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the test never opened the gate");
    }
    return new Invoice("INV-" + run, event.orderId(), event.amountCents());
  }

  @Idempotent(key = "#p1", scope = "#account")
  public List<Invoice> invoicesFor(String account, String key) {
    int run = runs.incrementAndGet();
    return List.of(new Invoice("INV-" + run, account, run));
  }

  @Idempotent(key = "'ping-' + #id")
  public void ping(String id) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "'nothing-' + #id")
  public String nothing(String id) {
    runs.incrementAndGet();
    return null;
  }

  @Idempotent(key = "'failing-' + #id")
  public String failing(String id, RuntimeException unchecked, IOException checked)
      throws IOException {
    int run = runs.incrementAndGet();
    if (run == 1 && unchecked != null) {
      throw unchecked;
    }
    if (run == 1 && checked != null) {
      throw checked;
    }
    return "ran " + run;
  }

  @Idempotent(key = "#id")
  public String byKey(String id) {
    return "ran " + runs.incrementAndGet();
  }
}
