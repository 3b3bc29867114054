package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.spring.Idempotent;
import dev.idempotency.spring.IdempotentMethods;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @Idempotent} methods in a Boot application: the advisor is configured over the
 * application's engine and applied by Boot's own auto-proxy creator (no AspectJ on the class path),
 * it backs off for the application's own, and a property turns it off.
 */
class IdempotentMethodsAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AopAutoConfiguration.class,
                  IdempotencyAutoConfiguration.class,
                  IdempotentMethodsAutoConfiguration.class))
          .withBean(KeyStore.class, InMemoryKeyStore::new)
          .withBean(Invoices.class);

  /** A consumer whose method creates an invoice per event, counted. */
  static class Invoices {
    private final AtomicInteger runs = new AtomicInteger();

    /** Through a method: the bean is a class proxy, whose own fields are not the target's. */
    public int runs() {
      return runs.get();
    }

    @Idempotent(key = "'invoice-' + #p0")
    public String create(String eventId) {
      return "invoice-" + runs.incrementAndGet() + "-for-" + eventId;
    }
  }

  @Test
  void aRedeliveredEventRunsTheMethodOnceAndGetsItsResult() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed().hasSingleBean(IdempotentMethods.class);
          Invoices invoices = context.getBean(Invoices.class);
          String first = invoices.create("evt-1");
          assertThat(invoices.create("evt-1")).isEqualTo(first);
          assertThat(invoices.create("evt-2")).isNotEqualTo(first);
          assertThat(invoices.runs()).as("runs of the method for two distinct events").isEqualTo(2);
          assertThat(
                  context
                      .getBean(IdempotencyEngine.class)
                      .store()
                      .lookup(
                          dev.idempotency.RecordId.of(
                              IdempotentMethods.DEFAULT_SCOPE, "invoice-evt-1")))
              .isPresent();
        });
  }

  @Test
  void theApplicationsOwnAdvisorWins() {
    runner
        .withBean(
            "ownAdvisor",
            IdempotentMethods.class,
            () ->
                IdempotentMethods.builder(IdempotencyEngine.builder(new InMemoryKeyStore()).build())
                    .defaultScope("own")
                    .build())
        .run(
            context ->
                assertThat(context).hasSingleBean(IdempotentMethods.class).hasBean("ownAdvisor"));
  }

  @Test
  void thePropertyTurnsTheAdvisorOff() {
    runner
        .withPropertyValues("idempotency.methods.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(IdempotentMethods.class);
              Invoices invoices = context.getBean(Invoices.class);
              invoices.create("evt-1");
              invoices.create("evt-1");
              assertThat(invoices.runs()).as("runs without the advisor").isEqualTo(2);
            });
  }
}
