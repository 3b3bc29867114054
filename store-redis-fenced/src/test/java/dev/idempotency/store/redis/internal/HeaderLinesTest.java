package dev.idempotency.store.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The headers field keeps order, spelling, empty lists and empty values. */
class HeaderLinesTest {
  @Test
  void roundTripsOrderSpellingAndEmptiness() {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("X-Zeta", List.of("2", "1"));
    headers.put("content-TYPE", List.of("application/json; charset=utf-8"));
    headers.put("X-Empty-List", List.of());
    headers.put("X-Empty-Value", List.of(""));
    headers.put("X-Ünïcode", List.of("東京", " spaced "));
    Map<String, List<String>> back = HeaderLines.decode(HeaderLines.encode(headers));
    assertThat(back).containsExactlyEntriesOf(headers);
    assertThat(HeaderLines.decode(HeaderLines.encode(Map.of()))).isEmpty();
  }
}
