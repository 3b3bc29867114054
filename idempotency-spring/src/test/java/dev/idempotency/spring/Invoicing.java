package dev.idempotency.spring;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Beans whose {@code @Idempotent} methods return something other than their declared class: a
 * subclass, the type argument of a generic base class, an implementation of an interface. Each
 * counts the runs of its body.
 */
public final class Invoicing {
  private Invoicing() {}

  /** A result class with a subclass. */
  public static class Invoice {
    public String number;
    public long amountCents;

    public Invoice() {}

    Invoice(String number, long amountCents) {
      this.number = number;
      this.amountCents = amountCents;
    }
  }

  /** What {@link Invoices#invoice} returns, declared as an {@link Invoice}. */
  public static class DiscountedInvoice extends Invoice {
    public long discountCents;

    public DiscountedInvoice() {}

    DiscountedInvoice(String number, long amountCents, long discountCents) {
      super(number, amountCents);
      this.discountCents = discountCents;
    }
  }

  /** A result interface, and what implements it. */
  public interface Confirmation {
    String id();
  }

  public record EmailConfirmation(String id, String to) implements Confirmation {}

  /** The concrete result of {@link ReceiptHandler}. */
  public record Receipt(String id, long amountCents) {}

  /** A bean of methods declared with a supertype of what they return. */
  public static class Invoices {
    final AtomicInteger runs = new AtomicInteger();

    public int runs() {
      return runs.get();
    }

    @Idempotent(key = "'invoice-' + #id")
    public Invoice invoice(String id) {
      runs.incrementAndGet();
      return new DiscountedInvoice("INV-" + id, 4200, 700);
    }

    @Idempotent(key = "'confirm-' + #id")
    public Confirmation confirm(String id) {
      runs.incrementAndGet();
      return new EmailConfirmation(id, "alice@example.com");
    }
  }

  /** A generic base whose guarded method returns its type argument. */
  public abstract static class Handler<R> {
    final AtomicInteger runs = new AtomicInteger();

    public int runs() {
      return runs.get();
    }

    @Idempotent(key = "'handle-' + #id")
    public R handle(String id) {
      runs.incrementAndGet();
      return make(id);
    }

    protected abstract R make(String id);
  }

  public static class ReceiptHandler extends Handler<Receipt> {
    @Override
    protected Receipt make(String id) {
      return new Receipt(id, 4200);
    }
  }

  /** A type argument that is itself generic. */
  public static class BatchHandler extends Handler<List<Receipt>> {
    @Override
    protected List<Receipt> make(String id) {
      return List.of(new Receipt(id + "-1", 100), new Receipt(id + "-2", 200));
    }
  }
}
