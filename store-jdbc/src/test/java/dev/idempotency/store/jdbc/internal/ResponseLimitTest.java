package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoredResponse;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each database's declared limit, and the refusals a completion meets before it is sent. */
class ResponseLimitTest {
  @Test
  void eachDatabaseDeclaresItsColumnOrPacketLimitLessTheReserve() {
    assertThat(ResponseLimit.withoutConnection("POSTGRESQL", 0).bytes())
        .isEqualTo((1L << 30) - 1 - 64 * 1024);
    assertThat(ResponseLimit.withoutConnection("H2", 0).bytes())
        .isEqualTo(1_000_000_000L - 64 * 1024);
    assertThat(ResponseLimit.of("MYSQL", 16L << 20, 0).bytes()).isEqualTo(8_355_840L);
    assertThat(ResponseLimit.of("MYSQL", 64L << 20, 0).bytes()).isEqualTo(33_521_664L);
  }

  @Test
  void aConfiguredLimitAboveTheDatabasesFailsNamingTheSettingAndTheFix() {
    assertThatThrownBy(() -> ResponseLimit.of("MYSQL", 16L << 20, 8_355_841L))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("maxResponseBytes(8355841)")
        .hasMessageContaining("at most 8355840")
        .hasMessageContaining("raise the server's max_allowed_packet");
    assertThat(ResponseLimit.of("MYSQL", 16L << 20, 8_355_840L).bytes()).isEqualTo(8_355_840L);
    assertThat(ResponseLimit.withoutConnection("MYSQL", 1000).bytes()).isEqualTo(1000);
    assertThat(ResponseLimit.withoutConnection("MYSQL", 20_000_000).bytes())
        .as("configured, built without a connection: trusted")
        .isEqualTo(20_000_000);
    assertThat(ResponseLimit.withoutConnection("MYSQL", 0).bytes())
        .as("built without a connection: MariaDB's default packet assumed")
        .isEqualTo(8_355_840L);
  }

  @Test
  void aServerPacketTooSmallForAnyResponseFailsTheBuild() {
    assertThatThrownBy(() -> ResponseLimit.of("MYSQL", 64 * 1024, 0))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("max_allowed_packet is 65536");
  }

  /**
   * {@code StoredResponse.size()} counts a header value's bytes, not the 4 bytes of length the
   * encoding adds per value: many empty values fit the declared limit but not the column.
   */
  @Test
  void headersWhoseEncodingOutgrowsTheColumnAreRefusedBeforeSending() {
    ResponseLimit mysql = ResponseLimit.of("MYSQL", 1L << 30, 0);
    StoredResponse manyEmpty =
        StoredResponse.of(200, Map.of("X-Many", Collections.nCopies(4_200_000, "")), new byte[0]);
    assertThat(manyEmpty.size()).isLessThan(mysql.bytes());
    assertThatThrownBy(() -> mysql.check(manyEmpty, "complete of a/k"))
        .isInstanceOf(KeyStoreException.class)
        .hasMessageContaining("complete of a/k")
        .hasMessageContaining("headers take 16800019 bytes encoded")
        .hasMessageContaining("16777215");
    assertThat(ResponseCodec.encodeHeaders(manyEmpty)).hasSize(16_800_019);
    assertThatCode(
            () ->
                mysql.check(StoredResponse.of(200, Map.of("A", List.of("b")), new byte[1000]), "c"))
        .doesNotThrowAnyException();
  }
}
