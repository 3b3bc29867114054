package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.Invoicing.BatchHandler;
import dev.idempotency.spring.Invoicing.Confirmation;
import dev.idempotency.spring.Invoicing.DiscountedInvoice;
import dev.idempotency.spring.Invoicing.EmailConfirmation;
import dev.idempotency.spring.Invoicing.Invoice;
import dev.idempotency.spring.Invoicing.Invoices;
import dev.idempotency.spring.Invoicing.Receipt;
import dev.idempotency.spring.Invoicing.ReceiptHandler;
import dev.idempotency.testing.DelegatingStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A replay is an object of the class the method returned, not merely of the class it declared: a
 * subclass keeps its fields, a generic base method's type argument is resolved against the bean's
 * class, an interface result is read back as its implementation; and the class a record names is
 * used only when it is a subtype of the declared one, so that a tampered record cannot make the
 * advisor load and fill an unrelated class.
 */
class IdempotentMethodResultTypesTest {
  /** Set by {@link Tripwire}'s static initializer and constructor. */
  static final AtomicBoolean TRIPWIRE_INITIALIZED = new AtomicBoolean();

  static final AtomicBoolean TRIPWIRE_CONSTRUCTED = new AtomicBoolean();

  /** A class no guarded method returns, with effects when it is initialized or constructed. */
  public static class Tripwire {
    static {
      TRIPWIRE_INITIALIZED.set(true);
    }

    public String number;
    public long amountCents;

    public Tripwire() {
      TRIPWIRE_CONSTRUCTED.set(true);
    }
  }

  /** When set, every completion stores {@code tamper}'s body instead of the result's. */
  static final AtomicReference<String> TAMPER = new AtomicReference<>();

  /** The store of the next context's engine. */
  static volatile KeyStore store;

  final KeyStore tamperingStore =
      new DelegatingStore(new InMemoryKeyStore()) {
        @Override
        public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
          String tampered = TAMPER.get();
          super.complete(
              id,
              fence,
              tampered == null ? response : StoredResponse.ofUtf8(response.status(), tampered),
              now);
        }
      };

  @Configuration(proxyBeanMethods = false)
  @Import(SpringContexts.Advised.class)
  static class App {
    @Bean
    IdempotencyEngine engine() {
      return IdempotencyEngine.builder(store).build();
    }

    @Bean
    Invoices invoices() {
      return new Invoices();
    }

    @Bean
    ReceiptHandler receiptHandler() {
      return new ReceiptHandler();
    }

    @Bean
    BatchHandler batchHandler() {
      return new BatchHandler();
    }
  }

  final AnnotationConfigApplicationContext context;

  IdempotentMethodResultTypesTest() {
    store = tamperingStore;
    context = SpringContexts.start(App.class);
  }

  @AfterEach
  void stop() {
    TAMPER.set(null);
    context.close();
  }

  @Test
  void aSubclassResultIsReplayedAsTheSubclassWithItsFields() {
    Invoices invoices = context.getBean(Invoices.class);

    Invoice first = invoices.invoice("1");
    Invoice replay = invoices.invoice("1");

    assertThat(invoices.runs()).isEqualTo(1);
    assertThat(first).isInstanceOf(DiscountedInvoice.class);
    assertThat(replay)
        .isInstanceOfSatisfying(
            DiscountedInvoice.class,
            d -> {
              assertThat(d.number).isEqualTo("INV-1");
              assertThat(d.amountCents).isEqualTo(4200);
              assertThat(d.discountCents).isEqualTo(700);
            });
  }

  @Test
  void aGenericBaseMethodIsReplayedAsTheTypeArgumentOfTheBeansClass() {
    ReceiptHandler handler = context.getBean(ReceiptHandler.class);

    Receipt first = handler.handle("r1");
    Receipt replay = handler.handle("r1"); // a ClassCastException if it were a map

    assertThat(handler.runs()).isEqualTo(1);
    assertThat(replay).isEqualTo(first).isEqualTo(new Receipt("r1", 4200));
  }

  @Test
  void aGenericTypeArgumentKeepsItsOwnTypeArguments() {
    BatchHandler handler = context.getBean(BatchHandler.class);

    List<Receipt> first = handler.handle("b1");
    List<Receipt> replay = handler.handle("b1");

    assertThat(handler.runs()).isEqualTo(1);
    assertThat(replay).isEqualTo(first);
    assertThat(replay.get(1)).isInstanceOf(Receipt.class);
  }

  @Test
  void anInterfaceResultIsReplayedAsItsImplementation() {
    Invoices invoices = context.getBean(Invoices.class);

    Confirmation first = invoices.confirm("c1");
    Confirmation replay = invoices.confirm("c1");

    assertThat(invoices.runs()).isEqualTo(1);
    assertThat(replay).isEqualTo(first).isEqualTo(new EmailConfirmation("c1", "alice@example.com"));
  }

  /**
   * A record whose class is no subtype of the declared {@link Invoice} (an attacker who can write
   * to the store, or another application's record under the key): the replay fails, the class is
   * neither initialized nor constructed, and the method does not run again.
   */
  @Test
  void aTamperedRecordNamingAnUnrelatedClassIsRefusedWithoutLoadingIt() {
    Invoices invoices = context.getBean(Invoices.class);
    TAMPER.set(
        "{\"type\":\""
            + Tripwire.class.getName()
            + "\",\"value\":{\"number\":\"INV-X\",\"amountCents\":1}}");
    invoices.invoice("t1");

    Throwable replay = catchThrowable(() -> invoices.invoice("t1"));

    assertThat(replay)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(Tripwire.class.getName())
        .hasMessageContaining("not a subtype of " + Invoice.class.getName());
    assertThat(TRIPWIRE_INITIALIZED).isFalse();
    assertThat(TRIPWIRE_CONSTRUCTED).isFalse();
    assertThat(invoices.runs()).isEqualTo(1);
  }

  @Test
  void aTamperedRecordNamingAJdkClassOrNoClassIsRefused() {
    Invoices invoices = context.getBean(Invoices.class);
    TAMPER.set("{\"type\":\"java.util.ArrayList\",\"value\":[]}");
    invoices.invoice("t2");
    TAMPER.set("{\"type\":\"dev.idempotency.spring.NoSuchInvoice\",\"value\":{}}");
    invoices.invoice("t3");

    assertThat(catchThrowable(() -> invoices.invoice("t2")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("java.util.ArrayList");
    assertThat(catchThrowable(() -> invoices.invoice("t3")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dev.idempotency.spring.NoSuchInvoice");
    assertThat(invoices.runs()).isEqualTo(2);
  }

  @Test
  void theStoredResultNamesItsClassOnlyWhenItIsASubtypeOfTheDeclaredOne() {
    context.getBean(Invoices.class).invoice("s1");
    context.getBean(ReceiptHandler.class).handle("s2");

    assertThat(body("invoice-s1"))
        .isEqualTo(
            "{\"type\":\""
                + DiscountedInvoice.class.getName()
                + "\",\"value\":{\"amountCents\":4200,\"discountCents\":700,\"number\":\"INV-s1\"}}");
    assertThat(body("handle-s2")).isEqualTo("{\"value\":{\"id\":\"s2\",\"amountCents\":4200}}");
  }

  // ---- start-up refusals: a return type a replay could only give as JSON maps and lists ----

  static class ObjectResult {
    @Idempotent(key = "#id")
    public Object handle(String id) {
      return new Receipt(id, 1);
    }
  }

  /** Its type variable is bound by no class: a bean made as {@code new Echo<Receipt>()}. */
  static class Echo<T> {
    @Idempotent(key = "#id")
    public T echo(String id, T value) {
      return value;
    }
  }

  static class UnboundListElement<T> {
    @Idempotent(key = "#id")
    public List<T> all(String id) {
      return List.of();
    }
  }

  @Test
  void aResultDeclaredAsObjectFailsTheStartUp() {
    assertThat(IdempotentMethodsTest.startUpFailureWith(ObjectResult.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ObjectResult.handle(String)")
        .hasMessageContaining("java.lang.Object");
  }

  @Test
  void aTypeVariableTheBeansClassDoesNotBindFailsTheStartUp() {
    assertThat(IdempotentMethodsTest.startUpFailureWith(Echo.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Echo.echo(String, Object)")
        .hasMessageContaining("type variable T");
    assertThat(IdempotentMethodsTest.startUpFailureWith(UnboundListElement.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("UnboundListElement.all(String)")
        .hasMessageContaining("type variable T");
  }

  private String body(String key) {
    return new String(
        tamperingStore
            .lookup(RecordId.of(IdempotentMethods.DEFAULT_SCOPE, key))
            .orElseThrow()
            .response()
            .orElseThrow()
            .body(),
        StandardCharsets.UTF_8);
  }
}
