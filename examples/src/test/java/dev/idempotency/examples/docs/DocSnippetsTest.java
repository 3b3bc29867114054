package dev.idempotency.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of README.md and docs/*.md is code that compiles: the line before its fence is
 * {@code <!-- snippet: Class#region -->}, and the block equals, as code (comments dropped,
 * whitespace collapsed), the lines between {@code // tag::region[]} and {@code // end::region[]} of
 * {@code Class.java}, a class of a test source set the build compiles. The snippet classes live in
 * this package when this module's class path has what they need, else in the test sources of the
 * module whose API they show (so that no module gains a dependency for its documentation's sake); a
 * class name names one file under any {@code src/test/java} of the repository. A block that shows
 * imports shows imports of that class. Links between the documents are checked here too: a broken
 * link or anchor is the same kind of rot.
 */
class DocSnippetsTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyJavaBlockIsARegionOfACompiledClass() {
    List<String> problems = new ArrayList<>();
    for (Path doc : documents()) {
      String name = ROOT.relativize(doc).toString().replace('\\', '/');
      problems.addAll(Snippets.problems(name, read(doc), DocSnippetsTest::source));
    }
    assertThat(problems).as("Java blocks that are not compiled regions").isEmpty();
  }

  @Test
  void theServerInTenLinesShowsEveryImportItNeeds() {
    String readme = read(ROOT.resolve("README.md"));
    int at = readme.indexOf("## The server, in ten lines");
    assertThat(at).as("the README's ten lines").isNotNegative();
    Matcher m = Snippets.BLOCK.matcher(readme);
    assertThat(m.find(at)).isTrue();
    assertThat(m.group(1)).isEqualTo("ReadmeSnippets#server-in-ten-lines");
    List<String> shown =
        m.group(2).lines().filter(l -> l.startsWith("import ")).map(Snippets::code).toList();
    List<String> needed =
        Snippets.imports(source("ReadmeSnippets")).stream()
            // the method's parameters, which the README takes as given
            .filter(i -> !i.endsWith(".ServletContext;") && !i.endsWith(".DataSource;"))
            .toList();
    assertThat(shown).as("the imports the ten lines need, shown").containsAll(needed);
  }

  @Test
  void everyRelativeLinkFindsItsFileAndHeading() {
    List<String> problems = new ArrayList<>();
    for (Path doc : documents()) {
      problems.addAll(Links.problems(ROOT, doc));
    }
    assertThat(problems).as("broken links").isEmpty();
  }

  // The checker, on documents made up for the purpose: each way a block can go wrong is caught.

  private static final String CLASS =
      "class S {\n  void s() {\n    // tag::one[]\n    int a = 1; // why\n    // end::one[]\n  }\n}\n";

  private static List<String> check(String markdown) {
    return Snippets.problems("docs/x.md", markdown, n -> n.equals("S") ? CLASS : null);
  }

  @Test
  void theCheckerAcceptsABlockEqualToItsRegionAsCode() {
    assertThat(check("<!-- snippet: S#one -->\n```java\nint a = 1;   // another comment\n```\n"))
        .isEmpty();
  }

  @Test
  void theCheckerRefusesAnUnmarkedBlockNamingFileAndLine() {
    assertThat(check("# T\n\n```java\nint a = 1;\n```\n"))
        .singleElement()
        .asString()
        .startsWith("docs/x.md:3:")
        .contains("no <!-- snippet: Class#region --> marker");
  }

  @Test
  void theCheckerRefusesAChangedWordAMissingRegionAndAMissingClass() {
    assertThat(check("<!-- snippet: S#one -->\n```java\nint b = 1;\n```\n"))
        .singleElement()
        .asString()
        .contains("differs from S#one");
    assertThat(check("<!-- snippet: S#two -->\n```java\nint a = 1;\n```\n"))
        .singleElement()
        .asString()
        .contains("no region two in S");
    assertThat(check("<!-- snippet: T#one -->\n```java\nint a = 1;\n```\n"))
        .singleElement()
        .asString()
        .contains("no class T");
  }

  @Test
  void theCheckerRefusesAnImportTheClassDoesNotHave() {
    assertThat(
            check("<!-- snippet: S#one -->\n```java\nimport java.util.List;\n\nint a = 1;\n```\n"))
        .singleElement()
        .asString()
        .contains("import java.util.List;");
  }

  @Test
  void slugsAreGitHubs() {
    assertThat(Links.slug("Crash recovery, tested with kill -9"))
        .isEqualTo("crash-recovery-tested-with-kill--9");
    assertThat(
            Links.slug("An endpoint in one transaction: `JdbcTemplate`, JPA and `@Transactional`"))
        .isEqualTo("an-endpoint-in-one-transaction-jdbctemplate-jpa-and-transactional");
    assertThat(Links.slug("`DynamoDbKeyStore` against `JdbcKeyStore`, point by point"))
        .isEqualTo("dynamodbkeystore-against-jdbckeystore-point-by-point");
  }

  /** README.md and docs/*.md. */
  static List<Path> documents() {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }

  private static Map<String, List<Path>> testSources;

  /** The text of the one {@code name.java} under a {@code src/test/java}, or null. */
  static synchronized String source(String name) {
    if (testSources == null) {
      testSources = new HashMap<>();
      try (Stream<Path> s = Files.walk(ROOT)) {
        s.filter(p -> p.toString().replace('\\', '/').contains("/src/test/java/"))
            .filter(p -> !p.toString().contains("/target/") && p.toString().endsWith(".java"))
            .forEach(
                p -> {
                  String file = p.getFileName().toString();
                  testSources
                      .computeIfAbsent(file.substring(0, file.length() - 5), k -> new ArrayList<>())
                      .add(p);
                });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    List<Path> found = testSources.getOrDefault(name, List.of());
    assertThat(found).as("test classes named %s", name).hasSizeLessThanOrEqualTo(1);
    return found.isEmpty() ? null : read(found.get(0));
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
