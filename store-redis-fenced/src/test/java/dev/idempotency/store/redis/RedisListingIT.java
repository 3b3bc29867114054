package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A listing of one scope's few records in a large index: each call looks at a bounded number of
 * index entries, so it answers pages that are empty but name where the next call goes on, and the
 * walk still lists each record of the scope once. The index entries all share one score (one lease
 * end), so the walk goes on within a run of equal scores, by member.
 */
class RedisListingIT {
  private static final Instant NOW = Instant.parse("2031-05-17T10:00:00Z");

  @Test
  void aScopeOfFewRecordsInALargeIndexIsListedWithinTheBudgetOfEachCall() {
    RedisClient client = SharedRedis.client();
    String prefix = SharedRedis.uniquePrefix("listing");
    try (StatefulRedisConnection<byte[], byte[]> connection = SharedRedis.connect(client)) {
      try {
        RedisKeyStore store =
            RedisKeyStore.builder(connection)
                .keyPrefix(prefix)
                .clock(RedisClock.ENGINE)
                .indexShards(1)
                .build();
        // 300 records of another scope; their members ("b3RoZXI.…") sort before this scope's
        // ("bWluZQ.…"), and a call with limit 1 looks at 110 entries at most
        for (int i = 0; i < 300; i++) {
          OwnRedis.claim(store, RecordId.of("other", "k" + i), NOW);
        }
        List<RecordId> mine = List.of(RecordId.of("mine", "a"), RecordId.of("mine", "b"));
        mine.forEach(id -> OwnRedis.claim(store, id, NOW));

        RecordQuery query =
            RecordQuery.of(RecordSelection.ABANDONED, NOW.plus(OwnRedis.LEASE), 1)
                .inScope(Scope.of("mine"));
        List<RecordId> listed = new ArrayList<>();
        int emptyPagesWithANext = 0;
        for (int calls = 0; calls < 20; calls++) {
          RecordPage page = store.list(query);
          page.records().forEach(r -> listed.add(r.id()));
          if (page.next().isEmpty()) {
            break;
          }
          if (page.records().isEmpty()) {
            emptyPagesWithANext++;
          }
          query = query.after(page.next().get());
        }

        assertThat(listed).containsExactlyElementsOf(mine);
        assertThat(emptyPagesWithANext)
            .as("calls that ran out of their budget among the other scope's entries")
            .isGreaterThanOrEqualTo(2);
      } finally {
        SharedRedis.deleteAll(connection, prefix);
      }
    } finally {
      client.shutdown();
    }
  }
}
