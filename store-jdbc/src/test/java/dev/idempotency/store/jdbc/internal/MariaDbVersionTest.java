package dev.idempotency.store.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which servers the MySQL dialect claims with {@code RETURNING} on: MariaDB from 10.5. */
class MariaDbVersionTest {
  @Test
  void mariaDbFromTenFiveReturnsRows() {
    assertThat(MySqlDialect.returnsRows("10.11.19-MariaDB-0+deb12u1")).isTrue();
    assertThat(MySqlDialect.returnsRows("10.5.0-MariaDB")).isTrue();
    assertThat(MySqlDialect.returnsRows("11.4.2-MariaDB-log")).isTrue();
    assertThat(MySqlDialect.returnsRows("5.5.5-10.11.6-MariaDB")).as("the 5.5.5- prefix").isTrue();
  }

  @Test
  void mySqlAndOlderMariaDbDoNot() {
    assertThat(MySqlDialect.returnsRows("8.0.36")).isFalse();
    assertThat(MySqlDialect.returnsRows("10.4.32-MariaDB")).isFalse();
    assertThat(MySqlDialect.returnsRows(null)).isFalse();
  }
}
