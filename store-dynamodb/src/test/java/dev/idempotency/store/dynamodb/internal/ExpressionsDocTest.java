package dev.idempotency.store.dynamodb.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/stores-dynamodb.md quotes every expression the store sends, as the store sends it. */
class ExpressionsDocTest {
  @Test
  void theDocsQuoteEveryExpressionVerbatim() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "stores-dynamodb.md"));
    int checked = 0;
    for (Field f : Expressions.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        String expression = (String) f.get(null);
        assertThat(docs).as("docs/stores-dynamodb.md quotes %s", f.getName()).contains(expression);
        checked++;
      }
    }
    assertThat(checked).as("expressions found").isEqualTo(12);
  }
}
