package dev.idempotency.examples.docs;

import dev.idempotency.Answer;
import dev.idempotency.Execution;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.FingerprintBuilder;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotentCall;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.ResultCodec;
import dev.idempotency.core.Work;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.KeyRequirement;
import dev.idempotency.servlet.IdempotencyFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The code of the pages about running work (docs/protect-a-consumer.md, docs/multi-step-work.md,
 * docs/engine.md), compiled: each region is a page's block, word for word as code. The types below
 * the regions stand in for the reader's own.
 */
final class WorkSnippets {
  private WorkSnippets() {}

  static Invoice consumer(IdempotencyEngine engine, OrderPaid event) {
    // tag::consumer[]
    IdempotentCall<Invoice> createInvoice =
        IdempotentCall.of(engine, Invoice.CODEC); // one per kind

    Invoice invoice =
        createInvoice.run(
            RecordId.of(event.accountId(), "invoice-" + event.id()), // a key from the event
            FingerprintBuilder.forPurpose("invoice/1")
                .add(event.orderId())
                .add(event.amountCents())
                .build(),
            Work.inOneTransaction(Connection.class, tx -> Invoices.insert(tx, event)));
    // end::consumer[]
    return invoice;
  }

  static Invoice consumerStepped(IdempotentCall<Invoice> createInvoice, OrderPaid event) {
    // tag::consumer-stepped[]
    Invoice invoice =
        createInvoice.run(
            RecordId.of(event.accountId(), "invoice-" + event.id()),
            FingerprintBuilder.forPurpose("invoice/1").add(event.orderId()).build(),
            Work.stepped(execution -> Invoices.createElsewhere(event))); // Redis, DynamoDB
    // end::consumer-stepped[]
    return invoice;
  }

  static Outcome engine(IdempotencyEngine engine, RecordId id, OrderPaid event) throws Exception {
    // tag::engine-execute[]
    Outcome outcome =
        engine.execute(
            id,
            FingerprintBuilder.forPurpose("orders/1").add(event.orderId()).build(),
            Work.inOneTransaction(
                Connection.class,
                tx -> {
                  Invoices.insert(tx, event); // the application's statements only
                  return StoredResponse.ofUtf8(201, "created");
                }));
    // end::engine-execute[]
    return outcome;
  }

  static Answer answer(StoredResponse live, StoredResponse withoutCookies) {
    // tag::answer[]
    Answer sendAllStoreLess = Answer.storedAs(live, withoutCookies); // caller gets live
    Answer storeNothing = Answer.released(live, "a preview"); // the key is released
    // end::answer[]
    return live.status() == 200 ? sendAllStoreLess : storeNothing;
  }

  static Outcome multiStep(
      IdempotencyEngine engine, RecordId id, OrderPaid event, PaymentProvider provider)
      throws Exception {
    // tag::multi-step[]
    Outcome outcome =
        engine.execute(
            id,
            FingerprintBuilder.forPurpose("checkout/1").add(event.orderId()).build(),
            Work.stepped(
                execution -> {
                  if (execution.resumeFrom().isEmpty()) { // no charge recorded yet
                    if (execution.leaseLost()) {
                      throw new IllegalStateException("another owner has the request");
                    }
                    IdempotencyKey chargeKey = execution.downstreamKey("charge"); // same on resume
                    String chargeId = provider.charge(chargeKey, event.amountCents());
                    execution.checkpoint( // the charge's row commits with the recovery point
                        RecoveryPoint.of("charged"),
                        Connection.class,
                        tx -> Invoices.recordCharge(tx, event, chargeId));
                  }
                  return execution.completeWith( // the last step's rows commit with the answer
                      Connection.class,
                      tx -> {
                        Invoices.insert(tx, event);
                        return StoredResponse.ofUtf8(201, "paid");
                      });
                }));
    // end::multi-step[]
    return outcome;
  }

  static void servlet(HttpServletRequest req, HttpServletResponse resp, OrderPaid event)
      throws Exception {
    // tag::servlet-stepped[]
    Execution execution = (Execution) req.getAttribute(IdempotencyFilter.EXECUTION_ATTRIBUTE);
    StoredResponse answer =
        execution.completeWith(
            Connection.class,
            tx -> {
              Invoices.insert(tx, event);
              return StoredResponse.ofUtf8(201, "created");
            });
    resp.setStatus(answer.status()); // what the first caller gets; a replay gets its stored form
    resp.getOutputStream().write(answer.body());
    // end::servlet-stepped[]
  }

  static IdempotencyHttp httpEndpoints(
      IdempotencyEngine engine,
      DataSource pool,
      HttpServletRequest request,
      HttpServletResponse response,
      String orderId,
      String item)
      throws SQLException {
    // tag::http-endpoints[]
    IdempotencyHttp http =
        IdempotencyHttp.builder(engine) // the engine over a JdbcKeyStore
            .endpoint(
                EndpointRule.of(KeyRequirement.REQUIRED, "/orders", "POST")) // one transaction
            .endpoint(
                EndpointRule.of(KeyRequirement.REQUIRED, "/payments/**", "POST")
                    .stepped()) // calls a provider
            .build();

    // in the servlet
    Connection tx = (Connection) request.getAttribute(IdempotencyFilter.TRANSACTION_ATTRIBUTE);
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO orders (id, item) VALUES (?, ?)")) {
      ps.setString(1, orderId);
      ps.setString(2, item);
      ps.executeUpdate();
    }
    response.setStatus(201); // captured, sent after the commit

    // or, for code written against a DataSource (a DAO, jOOQ, MyBatis): a view of the store's pool
    DataSource db = IdempotencyFilter.transactionAware(pool); // the request's connection inside one
    try (Connection c = db.getConnection(); // its close() is harmless
        PreparedStatement ps = c.prepareStatement("UPDATE stock SET n = n - 1 WHERE item = ?")) {
      ps.setString(1, item);
      ps.executeUpdate();
    }
    // end::http-endpoints[]
    return http;
  }

  /** The reader's own types. */
  record OrderPaid(String accountId, String id, String orderId, long amountCents) {}

  record Invoice(String number) {
    static final ResultCodec<Invoice> CODEC =
        ResultCodec.of(
            i -> i.number().getBytes(StandardCharsets.UTF_8),
            b -> new Invoice(new String(b, StandardCharsets.UTF_8)));
  }

  interface PaymentProvider {
    String charge(IdempotencyKey key, long amountCents);
  }

  static final class Invoices {
    private Invoices() {}

    static Invoice insert(Connection tx, OrderPaid event) throws SQLException {
      try (PreparedStatement insert = tx.prepareStatement("INSERT INTO invoices VALUES (?)")) {
        insert.setString(1, event.orderId());
        insert.executeUpdate();
      }
      return new Invoice("inv-" + event.orderId());
    }

    static Void recordCharge(Connection tx, OrderPaid event, String chargeId) throws SQLException {
      try (PreparedStatement insert = tx.prepareStatement("INSERT INTO charges VALUES (?, ?)")) {
        insert.setString(1, event.orderId());
        insert.setString(2, chargeId);
        insert.executeUpdate();
      }
      return null;
    }

    static Invoice createElsewhere(OrderPaid event) {
      return new Invoice("inv-" + event.orderId());
    }
  }
}
