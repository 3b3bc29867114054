package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An H2 file database that delays writing its commits (WRITE_DELAY, 500 ms by default) loses them
 * to a crash, and the idempotency records with them (the kill -9 tests in examples show it): the
 * store says so at start-up, naming the setting. In memory or with WRITE_DELAY=0 it says nothing.
 */
class H2DurabilityWarningTest {
  private final Logger logger = Logger.getLogger(JdbcKeyStore.class.getName());
  private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            warnings.add(record);
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @TempDir Path dir;

  @BeforeEach
  void listen() {
    logger.addHandler(capture);
  }

  @AfterEach
  void stopListening() {
    logger.removeHandler(capture);
  }

  private void build(String url) {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(url);
    JdbcKeyStore.builder(ds).createSchemaIfMissing().build();
  }

  @Test
  void fileDatabaseWithDelayedWritesIsWarnedAboutNamingTheSetting() {
    build("jdbc:h2:file:" + dir.resolve("delayed") + ";DB_CLOSE_DELAY=0");
    assertThat(warnings)
        .as("warnings at start-up over an H2 file database with the default WRITE_DELAY")
        .singleElement()
        .satisfies(
            w ->
                assertThat(w.getMessage())
                    .contains("WRITE_DELAY=500")
                    .contains(";WRITE_DELAY=0")
                    .contains("a process killed"));
  }

  @Test
  void fileDatabaseWithImmediateWritesIsNotWarnedAbout() {
    build("jdbc:h2:file:" + dir.resolve("durable") + ";WRITE_DELAY=0");
    assertThat(warnings)
        .as("warnings at start-up over an H2 file database with WRITE_DELAY=0")
        .isEmpty();
  }

  @Test
  void inMemoryDatabaseIsNotWarnedAbout() {
    build("jdbc:h2:mem:durability-warning;DB_CLOSE_DELAY=-1");
    assertThat(warnings).as("warnings at start-up over an in-memory H2 database").isEmpty();
  }
}
