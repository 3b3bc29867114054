package dev.idempotency.spring;

import dev.idempotency.RecordId;
import dev.idempotency.spi.KeyStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transactional {@code @Idempotent} methods writing through {@code JdbcTemplate} on the store's
 * DataSource, and what another connection sees while they run.
 */
public class Ledger {
  private final JdbcTemplate jdbc;
  private final DataSource dataSource;
  private final KeyStore store;
  private final Audit audit;
  private final List<String> seenFromOutside = new CopyOnWriteArrayList<>();

  public Ledger(DataSource dataSource, KeyStore store, Audit audit) {
    this.jdbc = new JdbcTemplate(dataSource);
    this.dataSource = dataSource;
    this.store = store;
    this.audit = audit;
  }

  /** What another connection saw while a method ran: its rows, and its key's record. */
  public List<String> seenFromOutside() {
    return List.copyOf(seenFromOutside);
  }

  @Idempotent(key = "'charge-' + #id", transactional = true)
  public String charge(String id, boolean fail) throws SQLException {
    jdbc.update("insert into charges(id) values (?)", id);
    lookFromOutside(id, "charge-" + id);
    if (fail) {
      throw new IllegalStateException("declined after the insert");
    }
    return "charged " + id;
  }

  @Idempotent(key = "'audited-' + #id", transactional = true)
  public String chargeAudited(String id, boolean auditFails, boolean failAfter) {
    jdbc.update("insert into charges(id) values (?)", id);
    try {
      audit.record(id, auditFails);
    } catch (IllegalStateException swallowed) {
      // the method carries on: the joined @Transactional marked the transaction rollback-only
    }
    if (failAfter) {
      throw new IllegalStateException("failed after the audit committed its part");
    }
    return "audited " + id;
  }

  /** What {@link IdempotentMethods#currentExecution()} answers inside a transactional method. */
  @Idempotent(key = "'asks-' + #id", transactional = true)
  public String asksForItsExecution(String id) {
    try {
      return "an execution of " + IdempotentMethods.currentExecution().recordId();
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
  }

  @Idempotent(key = "'plain-' + #id")
  public String plainCharge(String id) {
    jdbc.update("insert into charges(id) values (?)", id);
    return "charged " + id;
  }

  private void lookFromOutside(String id, String key) throws SQLException {
    try (Connection other = dataSource.getConnection();
        Statement s = other.createStatement();
        ResultSet rows = s.executeQuery("select count(*) from charges")) {
      rows.next();
      seenFromOutside.add(
          "rows=" + rows.getInt(1) + " record=" + store.lookup(RecordId.of("methods", key)));
    }
  }

  /** A {@code @Transactional} bean the ledger calls: it joins the store's transaction. */
  public static class Audit {
    private final JdbcTemplate jdbc;

    public Audit(DataSource dataSource) {
      this.jdbc = new JdbcTemplate(dataSource);
    }

    @Transactional
    public void record(String id, boolean fail) {
      jdbc.update("insert into audit(id) values (?)", id);
      if (fail) {
        throw new IllegalStateException("the audit refused " + id);
      }
    }
  }

  /** A caller whose own transaction surrounds the ledger's methods. */
  public static class Checkout {
    private final Ledger ledger;

    public Checkout(Ledger ledger) {
      this.ledger = ledger;
    }

    @Transactional
    public String pay(String id) throws SQLException {
      return ledger.charge(id, false);
    }

    @Transactional
    public String payPlainThenFail(String id) {
      ledger.plainCharge(id);
      throw new IllegalStateException("the checkout rolled back after the charge returned");
    }
  }
}
