package dev.idempotency.store.dynamodb.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/stores-dynamodb.md quotes every expression the store sends, as the store sends it: whole, in
 * backticks or as the only line of a code block, so that an expression contained in another (the
 * reaper's filter is part of its delete condition) is not found inside that other one.
 */
class ExpressionsDocTest {
  @Test
  void theDocsQuoteEveryExpressionVerbatim() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "stores-dynamodb.md"));
    int checked = 0;
    for (Field f : Expressions.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        String expression = (String) f.get(null);
        assertThat(quotes(docs, expression))
            .as("docs/stores-dynamodb.md quotes %s whole: `%s`", f.getName(), expression)
            .isTrue();
        checked++;
      }
    }
    assertThat(checked).as("expressions found").isEqualTo(14);
  }

  @Test
  void anExpressionContainedInAnotherIsNotFoundInIt() {
    String docs =
        "the delete: `fence = :f AND st = :st AND retain <= :cut AND (attribute_not_exists(keep)"
            + " OR keep <= :now)`";
    assertThat(quotes(docs, Expressions.DELETE_CONDITION)).isTrue();
    assertThat(quotes(docs, Expressions.EXPIRED_FILTER)).isFalse();
  }

  private static boolean quotes(String docs, String expression) {
    return docs.contains("`" + expression + "`") || docs.contains("```\n" + expression + "\n```");
  }
}
