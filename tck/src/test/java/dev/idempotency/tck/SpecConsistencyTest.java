package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.tck.internal.Rule;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md, the rule table in code and the test names agree: every rule is specified, named and
 * tested.
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

  @Test
  void everyRuleIsARowOfSpecMd() throws Exception {
    String spec = Files.readString(Path.of("SPEC.md"));
    for (Rule rule : Rule.values()) {
      assertThat(spec)
          .as("SPEC.md has a row for rule %s", rule.id())
          .contains("| " + rule.id() + " |");
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
