package dev.idempotency.spring;

import dev.idempotency.Execution;
import dev.idempotency.client.OperationKey;
import dev.idempotency.core.IdempotencyEngine;
import jakarta.persistence.EntityManagerFactory;
import java.net.http.HttpClient;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The code of docs/spring.md, compiled: each region is a block of the page, word for word as code.
 * The types below the regions stand in for the reader's own; nothing here runs.
 */
final class SpringSnippets {
  private SpringSnippets() {}

  static final class Consumer {
    private final Invoices invoices = event -> new Invoice(event.id());

    // tag::idempotent-method[]
    @Idempotent(
        key = "'invoice-' + #event.id",
        fingerprint = {"#event.orderId", "#event.amountCents"})
    public Invoice onOrderPaid(OrderPaid event) {
      return invoices.create(event); // runs once per event id within the replay window
    }
    // end::idempotent-method[]
  }

  static final class Configuration {
    // tag::idempotent-methods-bean[]
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static IdempotentMethods idempotentMethods(IdempotencyEngine engine, JsonMapper json) {
      return IdempotentMethods.builder(engine).jsonMapper(json).build();
    }
    // end::idempotent-methods-bean[]
  }

  static final class Shipping {
    private final Carrier carrier = (parcel, key) -> new Shipment(key);

    // tag::current-execution[]
    @Idempotent(key = "'ship-' + #order.id")
    public Shipment ship(Order order) {
      Execution execution = IdempotentMethods.currentExecution(); // this method's claim
      Parcel parcel = pack(order); // long
      if (execution.leaseLost()) { // before the side effect
        throw new IllegalStateException("lease lost: not shipping " + order.id());
      }
      return carrier.ship(
          parcel, execution.downstreamKey("ship").value()); // the same key on every run
    }

    // end::current-execution[]

    private static Parcel pack(Order order) {
      return new Parcel(order.id());
    }
  }

  static final class Charging {
    private final JdbcTemplate jdbc = new JdbcTemplate();

    // tag::transactional-method[]
    @Bean
    static IdempotentMethods idempotentMethods(IdempotencyEngine engine, DataSource dataSource) {
      return IdempotentMethods.builder(engine)
          .transactionalDataSource(dataSource)
          .build(); // the JdbcKeyStore's
    }

    @Idempotent(key = "'charge-' + #id", transactional = true)
    public Receipt charge(String id, long cents) {
      jdbc.update(
          "insert into charges(id, cents) values (?, ?)",
          id,
          cents); // JdbcTemplate on that DataSource
      return new Receipt(id, cents);
    }
    // end::transactional-method[]
  }

  static IdempotentMethods jpa(
      IdempotencyEngine engine, DataSource dataSource, EntityManagerFactory entityManagerFactory) {
    // tag::jpa[]
    return IdempotentMethods.builder(engine)
        .transactionalDataSource(dataSource) // the JdbcKeyStore's
        .transactionalEntityManagerFactory(entityManagerFactory) // Hibernate's, on that DataSource
        .build();
    // end::jpa[]
  }

  static Confirmation restClient(Confirm confirm) {
    // tag::rest-client[]
    JdkClientHttpRequestFactory factory =
        new JdkClientHttpRequestFactory(HttpClient.newHttpClient());
    factory.setReadTimeout(Duration.ofSeconds(10)); // the policy's attemptTimeout: see below
    RestClient payments =
        RestClient.builder()
            .requestFactory(factory)
            .requestInterceptor(
                IdempotentRestClient.create()) // 3 attempts, full jitter, 30 s deadline, budget
            .build();
    Confirmation c =
        payments
            .post()
            .uri("https://api.example.com/orders/4711/confirm")
            .attribute(
                IdempotentRestClient.KEY_ATTRIBUTE, OperationKey.forEvent("order-confirm", "4711"))
            .body(confirm)
            .retrieve()
            .body(Confirmation.class);
    // end::rest-client[]
    return c;
  }

  /** The reader's own types. */
  record OrderPaid(String id, String orderId, long amountCents) {}

  record Invoice(String id) {}

  interface Invoices {
    Invoice create(OrderPaid event);
  }

  record Order(String id) {}

  record Parcel(String orderId) {}

  record Shipment(String trackingKey) {}

  interface Carrier {
    Shipment ship(Parcel parcel, String idempotencyKey);
  }

  record Receipt(String id, long cents) {}

  record Confirm(String orderId) {}

  record Confirmation(String orderId) {}
}
