package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.FenceToken;
import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Outcome;
import dev.idempotency.core.Work;
import dev.idempotency.testing.DelegatingStore;
import dev.idempotency.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A completion that committed but whose answer was lost: a socket timeout ends the call while the
 * server, frozen or slow, still holds the statement, and runs it when it wakes (seen in {@code
 * MariaDbCompletionOutageGateIT}: 4 of 20 owners). The engine asks again, and the store refuses the
 * second {@code complete} because the record is complete (SPEC 5.2). The record holds the owner's
 * own response under its own fence, so the owner's caller must get its response.
 */
@Timeout(30)
class CompletionAnswerLostTest {
  @Test
  void aCompletionThatCommittedBeforeItsAnswerWasLostAnswersTheResponse() throws Exception {
    try (HikariDataSource pool = TestDatabases.H2.pool(TestDatabases.H2.url(), 4)) {
      JdbcKeyStore store =
          JdbcKeyStore.builder(pool).tableName("answer_lost").createSchemaIfMissing().build();
      AtomicBoolean lost = new AtomicBoolean();
      DelegatingStore answerLostOnce =
          new DelegatingStore(store) {
            @Override
            public void complete(
                RecordId id, FenceToken fence, StoredResponse response, Instant now) {
              super.complete(id, fence, response, now);
              if (lost.compareAndSet(false, true)) {
                throw new StoreUnavailableException("Read timed out (the commit went through)");
              }
            }
          };
      try (IdempotencyEngine engine =
          IdempotencyEngine.builder(answerLostOnce)
              .config(IdempotencyConfig.builder().lease(Duration.ofSeconds(8)).build())
              .build()) {
        Outcome outcome =
            engine.execute(
                RecordId.of("gate", "answer-lost"),
                Fingerprint.of("POST /charges".getBytes(StandardCharsets.UTF_8)),
                Work.stepped(execution -> StoredResponse.ofUtf8(201, "charged")));

        assertThat(lost).isTrue();
        assertThat(outcome).isInstanceOf(Outcome.Executed.class);
        assertThat(((Outcome.Executed) outcome).response().status()).isEqualTo(201);
      }
    }
  }
}
