package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.tck.internal.Rule;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, the rule table in code and the test names agree: every rule is specified (SPEC.md's rule
 * tables say, word for word, what {@link Rule} says), named and tested.
 */
class SpecConsistencyTest {
  private static final Pattern NAME =
      Pattern.compile("(required|optional|stochastic|untested)_(\\d+)_(\\d+)_\\w+");

  /**
   * The tests the contract runs: those of the section interfaces its {@code @Nested} classes
   * implement.
   */
  private static List<Method> contractTests() {
    List<Method> tests = new ArrayList<>();
    for (Class<?> contract : List.of(KeyStoreContract.class, TransactionalKeyStoreContract.class)) {
      for (Class<?> nested : contract.getDeclaredClasses()) {
        if (nested.isAnnotationPresent(Nested.class)) {
          // the default methods of the section interfaces the nested class implements
          for (Method m : nested.getMethods()) {
            if (m.isAnnotationPresent(Test.class)) {
              tests.add(m);
            }
          }
        }
      }
    }
    return tests;
  }

  @Test
  void everySectionFileRunsInTheContract() throws Exception {
    Set<String> files = new TreeSet<>();
    try (Stream<Path> sources = Files.list(Path.of("src/main/java/dev/idempotency/tck"))) {
      sources
          .map(p -> p.getFileName().toString())
          .filter(f -> f.matches("Section\\d+\\w*\\.java"))
          .forEach(f -> files.add(f.substring(0, f.length() - ".java".length())));
    }
    Set<String> run = new TreeSet<>();
    for (Class<?> contract : List.of(KeyStoreContract.class, TransactionalKeyStoreContract.class)) {
      for (Class<?> nested : contract.getDeclaredClasses()) {
        if (nested.isAnnotationPresent(Nested.class)) {
          for (Class<?> section : nested.getInterfaces()) {
            run.add(section.getSimpleName());
          }
        }
      }
    }
    assertThat(files).as("the section files in src/main").hasSizeGreaterThanOrEqualTo(11);
    assertThat(run).as("the sections the contracts' @Nested classes run").containsAll(files);
  }

  /** A row of SPEC.md's rule tables: the rule and what to check, with the markdown dropped. */
  private record SpecRow(String rule, String check) {}

  private static final Pattern RULE_ROW = Pattern.compile("^\\| (\\d+\\.\\d+) \\|.*\\|$");

  /**
   * SPEC.md's rule rows by id. A row has five cells (id, level, rule, rationale, what to check);
   * the texts lose their markdown ({@code `code`} and {@code **bold**}), which failure messages do
   * not carry.
   */
  private static Map<String, SpecRow> specRows() throws Exception {
    Map<String, SpecRow> rows = new TreeMap<>();
    for (String line : Files.readAllLines(Path.of("SPEC.md"))) {
      Matcher m = RULE_ROW.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String[] cells = line.substring(2, line.length() - 2).split(" \\| ", -1);
      assertThat(cells).as("the cells of SPEC.md's row %s", m.group(1)).hasSize(5);
      SpecRow previous = rows.put(m.group(1), new SpecRow(plain(cells[2]), plain(cells[4])));
      assertThat(previous).as("a second row for rule %s in SPEC.md", m.group(1)).isNull();
    }
    return rows;
  }

  private static String plain(String markdown) {
    return markdown.replace("**", "").replace("`", "").strip();
  }

  @Test
  void specMdStatesEveryRuleWordForWordAsTheCodeDoes() throws Exception {
    Map<String, SpecRow> rows = specRows();
    Set<String> ids = new TreeSet<>();
    for (Rule rule : Rule.values()) {
      ids.add(rule.id());
    }
    assertThat(rows.keySet())
        .as("the rule rows of SPEC.md against the rules in Rule")
        .isEqualTo(ids);
    for (Rule rule : Rule.values()) {
      SpecRow row = rows.get(rule.id());
      assertThat(row.rule())
          .as(
              "rule %s: SPEC.md's Rule cell (markdown dropped) against Rule.%s.text()",
              rule.id(), rule.name())
          .isEqualTo(rule.text());
      assertThat(row.check())
          .as(
              "rule %s: SPEC.md's \"If this fails, check\" cell (markdown dropped) against Rule.%s.hint() + \".\"",
              rule.id(), rule.name())
          .isEqualTo(rule.hint() + ".");
    }
  }

  @Test
  void everyTestIsNamedAfterAnExistingRuleAndQuotesIt() {
    Set<String> ids = new HashSet<>();
    for (Rule rule : Rule.values()) {
      ids.add(rule.id());
    }
    List<Method> tests = contractTests();
    assertThat(tests).hasSizeGreaterThan(30);
    for (Method m : tests) {
      Matcher matcher = NAME.matcher(m.getName());
      assertThat(matcher.matches()).as("test name %s follows the convention", m.getName()).isTrue();
      String id = matcher.group(2) + "." + matcher.group(3);
      assertThat(ids).as("rule of %s", m.getName()).contains(id);
      DisplayName dn = m.getAnnotation(DisplayName.class);
      assertThat(dn).as("@DisplayName of %s", m.getName()).isNotNull();
      assertThat(dn.value()).as("@DisplayName of %s", m.getName()).startsWith("Rule " + id);
    }
  }

  @Test
  void everyRuleHasATest() {
    Set<String> tested = new HashSet<>();
    for (Method m : contractTests()) {
      Matcher matcher = NAME.matcher(m.getName());
      if (matcher.matches()) {
        tested.add(matcher.group(2) + "." + matcher.group(3));
      }
    }
    for (Rule rule : Rule.values()) {
      assertThat(tested).as("a test for rule %s", rule.id()).contains(rule.id());
    }
  }
}
