package dev.idempotency.examples.springboot;

import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;

/**
 * The controller of docs/spring-boot.md, compiled here, where Spring is on the class path; the
 * examples module's DocSnippetsTest holds the page's block equal to the region. Not a bean of the
 * example application: it is not annotated, and nothing scans it.
 */
final class SpringBootSnippets {
  private final JdbcTemplate jdbc;

  SpringBootSnippets(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  record OrderRequest(String item) {}

  record Order(String id, String item) {
    static Order from(OrderRequest request) {
      return new Order(UUID.randomUUID().toString(), request.item());
    }
  }

  // tag::endpoint-in-one-transaction[]
  @PostMapping("/orders")
  ResponseEntity<Order> create(@RequestBody OrderRequest request) {
    Order order = Order.from(request);
    jdbc.update(
        "INSERT INTO orders (id, item) VALUES (?, ?)",
        order.id(),
        order.item()); // the claim's transaction
    return ResponseEntity.status(201).body(order); // stored with the insert, in the same commit
  }
  // end::endpoint-in-one-transaction[]
}
