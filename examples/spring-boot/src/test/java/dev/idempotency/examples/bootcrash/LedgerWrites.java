package dev.idempotency.examples.bootcrash;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The application's two ways of writing its ledger row, as an application writes them. */
@Service
public class LedgerWrites {
  private static final long PID = ProcessHandle.current().pid();

  private final JdbcTemplate jdbc;

  @PersistenceContext private EntityManager entityManager;

  public LedgerWrites(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** A plain {@code JdbcTemplate} insert, no {@code @Transactional} of the application's. */
  public void viaJdbcTemplate(String key) {
    jdbc.update(
        "INSERT INTO "
            + LedgerRow.TABLE
            + " (id, record_key, writer, worker_pid) VALUES (?, ?, ?, ?)",
        UUID.randomUUID().toString(),
        key,
        "jdbc",
        PID);
  }

  /**
   * A JPA persist in a {@code @Transactional} method, as a service (or a Spring Data repository)
   * does. The flush makes the INSERT run here: inside the request's one transaction the joined
   * method commits nothing, so without it the SQL would run only at the flush after the controller
   * returns, and a kill while the controller blocks would come before the write, not after it.
   */
  @Transactional
  public void viaJpa(String key) {
    entityManager.persist(new LedgerRow(UUID.randomUUID().toString(), key, "jpa", PID));
    entityManager.flush();
  }
}
