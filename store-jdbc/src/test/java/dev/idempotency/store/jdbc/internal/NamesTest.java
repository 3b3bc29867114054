package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Table names and the DDL rewritten for them. */
class NamesTest {
  private static final String DDL =
      "CREATE SEQUENCE IF NOT EXISTS idempotency_records_fence_seq;\n"
          + "CREATE TABLE IF NOT EXISTS idempotency_records (\n"
          + "  CONSTRAINT idempotency_records_pk PRIMARY KEY (scope, idem_key),\n"
          + "  CONSTRAINT idempotency_records_state_ck CHECK (state IN ('I', 'C', 'R')));\n"
          + "CREATE INDEX IF NOT EXISTS idempotency_records_retain_idx ON idempotency_records (state, retain_from_ns);";

  @Test
  void defaultNameRendersTheDdlUnchanged() {
    assertThat(Names.of(Names.DEFAULT_TABLE).render(DDL)).isEqualTo(DDL);
  }

  @Test
  void schemaQualifiedNameQualifiesTheTableAndSequenceButNotConstraintsAndIndexes() {
    String out = Names.of("billing.payments_keys").render(DDL);
    assertThat(out)
        .contains("CREATE SEQUENCE IF NOT EXISTS billing.payments_keys_fence_seq;")
        .contains("CREATE TABLE IF NOT EXISTS billing.payments_keys (")
        .contains("CONSTRAINT payments_keys_pk PRIMARY KEY")
        .contains("CONSTRAINT payments_keys_state_ck CHECK")
        .contains("CREATE INDEX IF NOT EXISTS payments_keys_retain_idx ON billing.payments_keys (")
        .doesNotContain("idempotency_records");
  }

  /**
   * A name that contains the default one is rewritten once, not again inside what was already
   * rewritten.
   */
  @Test
  void nameContainingTheDefaultNameIsRenderedOnce() {
    String out = Names.of("idempotency_records2").render(DDL);
    assertThat(out)
        .contains("CREATE SEQUENCE IF NOT EXISTS idempotency_records2_fence_seq;")
        .contains("CREATE TABLE IF NOT EXISTS idempotency_records2 (")
        .contains("CONSTRAINT idempotency_records2_pk PRIMARY KEY")
        .contains("CONSTRAINT idempotency_records2_state_ck CHECK")
        .contains(
            "CREATE INDEX IF NOT EXISTS idempotency_records2_retain_idx ON idempotency_records2 (")
        .doesNotContain("idempotency_records22");
  }

  @Test
  void invalidNamesAreRejectedNamingTheSetting() {
    assertThatThrownBy(() -> Names.of("records; DROP TABLE x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tableName");
    assertThatThrownBy(() -> Names.of("a".repeat(49)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 48");
  }
}
