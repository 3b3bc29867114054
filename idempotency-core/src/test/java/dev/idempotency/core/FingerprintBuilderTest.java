package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.Fingerprint;
import org.junit.jupiter.api.Test;

/** {@link FingerprintBuilder}: one purpose's sequence of fields decodes into one request. */
class FingerprintBuilderTest {
  private static FingerprintBuilder invoice() {
    return FingerprintBuilder.forPurpose("invoice/1");
  }

  @Test
  void theSameFieldsGiveTheSameFingerprint() {
    assertThat(invoice().add("cust-7").add(4200).build())
        .isEqualTo(invoice().add("cust-7").add(4200).build());
  }

  @Test
  void theFramesKeepFieldBoundaries() {
    assertThat(invoice().add("ab").add("c").build())
        .as("(\"ab\", \"c\") must differ from (\"a\", \"bc\"): each field is framed by its length")
        .isNotEqualTo(invoice().add("a").add("bc").build());
  }

  @Test
  void anAbsentFieldDiffersFromAnEmptyOne() {
    assertThat(invoice().addAbsent().build()).isNotEqualTo(invoice().add("").build());
    assertThat(invoice().addAbsent().build()).isNotEqualTo(invoice().build());
  }

  @Test
  void thePurposeIsPartOfTheFingerprint() {
    Fingerprint v1 = FingerprintBuilder.forPurpose("invoice/1").add("x").build();
    Fingerprint v2 = FingerprintBuilder.forPurpose("invoice/2").add("x").build();
    assertThat(v1).isNotEqualTo(v2);
    assertThat(FingerprintBuilder.forPurpose("a").add("b").build())
        .as("the purpose is framed too: purpose \"a\" + field \"b\" differs from purpose \"ab\"")
        .isNotEqualTo(FingerprintBuilder.forPurpose("ab").build());
  }

  @Test
  void numbersAreFramedAsTheirEightBytes() {
    assertThat(invoice().add(1L).build())
        .as("documented: fields are framed, not typed")
        .isEqualTo(invoice().add(new byte[] {0, 0, 0, 0, 0, 0, 0, 1}).build());
    assertThat(invoice().add(1L).build()).isNotEqualTo(invoice().add(2L).build());
  }

  @Test
  void theFingerprintIsASha256Digest() {
    assertThat(invoice().build().bytes()).hasSize(32);
  }

  @Test
  void aBlankPurposeIsRefused() {
    assertThatThrownBy(() -> FingerprintBuilder.forPurpose(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("purpose");
  }
}
