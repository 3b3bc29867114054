package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A listing of one scope's few records in a larger table: each call evaluates a bounded number of
 * items (110 with limit 1), so some calls stop mid-table with an empty page that names where the
 * next scan starts (the scan's last evaluated key), and the walk still lists each record once.
 */
class DynamoDbListingIT {
  private static final Instant T0 = Instant.parse("2031-05-17T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void aScopeOfFewRecordsInALargerTableIsListedWithinTheBudgetOfEachCall() {
    String table = Dynalite.table("listing");
    try (DynamoDbClient client = Dynalite.client();
        DynamoDbKeyStore store =
            DynamoDbKeyStore.builder(client).tableName(table).createTableIfMissing().build()) {
      try {
        for (int i = 0; i < 250; i++) {
          claim(store, RecordId.of("other", "k" + i));
        }
        Set<RecordId> mine = Set.of(RecordId.of("mine", "a"), RecordId.of("mine", "b"));
        mine.forEach(id -> claim(store, id));

        RecordQuery query =
            RecordQuery.of(RecordSelection.ABANDONED, T0.plus(LEASE), 1).inScope(Scope.of("mine"));
        List<RecordId> listed = new ArrayList<>();
        int emptyPagesWithANext = 0;
        for (int calls = 0; calls < 20; calls++) {
          RecordPage page = store.list(query);
          assertThat(page.records()).hasSizeLessThanOrEqualTo(1);
          page.records().forEach(r -> listed.add(r.id()));
          if (page.next().isEmpty()) {
            break;
          }
          if (page.records().isEmpty()) {
            emptyPagesWithANext++;
          }
          query = query.after(page.next().get());
        }

        assertThat(listed).doesNotHaveDuplicates();
        assertThat(new HashSet<>(listed)).isEqualTo(mine);
        assertThat(emptyPagesWithANext)
            .as("calls that ran out of their budget among the other scope's items")
            .isPositive();
      } finally {
        Dynalite.drop(client, table);
      }
    }
  }

  private static void claim(DynamoDbKeyStore store, RecordId id) {
    store.claim(
        new ClaimRequest(id, Fingerprint.of(new byte[] {1}), T0, LEASE, Duration.ofHours(24)));
  }
}
