package dev.idempotency.store.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The key layout: exact and unambiguous names, one hash tag per shard, hostile prefixes refused.
 */
class KeyLayoutTest {
  @Test
  void membersAreExactUnambiguousAndDecodeBack() {
    List<RecordId> ids =
        List.of(
            RecordId.of("a/b", "c"),
            RecordId.of("a", "b/c"),
            RecordId.of("a.b", "c"),
            RecordId.of("a", "b.c"),
            RecordId.of("Tenant", "k"),
            RecordId.of("tenant", "k"),
            RecordId.of("tenant ", "k"),
            RecordId.of("tenant", "k}{"),
            RecordId.of("Zürich – 東京", "%_*?[]"));
    Set<String> members = new HashSet<>();
    for (RecordId id : ids) {
      String member = KeyLayout.member(id);
      assertThat(member).doesNotContain("{", "}");
      assertThat(KeyLayout.idOf(member)).isEqualTo(id);
      members.add(member);
    }
    assertThat(members).hasSize(ids.size());
  }

  @Test
  void aRecordItsCounterAndItsShardsIndexesShareOneHashTag() {
    KeyLayout layout = KeyLayout.of("idem:", 16);
    String member = KeyLayout.member(RecordId.of("tenant", "key-with-}-and-{"));
    int shard = layout.shardOf(member);
    String tag = "{s" + shard + "}";
    for (byte[] key :
        List.of(
            layout.record(member),
            layout.counter(member),
            layout.leaseIndex(shard),
            layout.completionIndex(shard))) {
      String k = new String(key, StandardCharsets.US_ASCII);
      assertThat(k).startsWith("idem:" + tag);
      // Redis hashes the text between the first '{' and the first '}' after it
      assertThat(k.substring(k.indexOf('{'), k.indexOf('}') + 1)).isEqualTo(tag);
    }
  }

  @Test
  void shardsSpreadRecordsAndAreStable() {
    KeyLayout layout = KeyLayout.of("p:", 8);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      seen.add(layout.shardOf(KeyLayout.member(RecordId.of("t", "k" + i))));
    }
    assertThat(seen).hasSize(8);
    // CRC-32 of the member, modulo the shard count: the same in every process and version
    assertThat(layout.shardOf(KeyLayout.member(RecordId.of("t", "k0"))))
        .isEqualTo(layout.shardOf("dA.azA"));
  }

  @Test
  void prefixesThatWouldBreakTheHashTagAndForeignMembersAreRefused() {
    assertThatThrownBy(() -> KeyLayout.of("a{b}:", 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KeyLayout.of("ok:", 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KeyLayout.of("ok:", 16385))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> KeyLayout.idOf("not-a-member"))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("another application");
  }
}
