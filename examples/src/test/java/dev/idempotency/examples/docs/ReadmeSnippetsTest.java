package dev.idempotency.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each Java block of the README that names a region of {@link ReadmeSnippets} is that region's
 * code, and its imports are the class's: the README shows only code that compiles. Compared as code
 * (comments dropped, whitespace collapsed), since the formatter and the README align comments
 * differently.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path SOURCE =
      Path.of("src/test/java/dev/idempotency/examples/docs/ReadmeSnippets.java");

  @Test
  void theServerInTenLinesIsCodeThatCompiles() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    String block = javaBlockAfter(readme, "## The server, in ten lines");
    String source = Files.readString(SOURCE);

    List<String> readmeImports = new ArrayList<>();
    StringBuilder readmeCode = new StringBuilder();
    for (String line : block.lines().toList()) {
      if (line.startsWith("import ")) {
        readmeImports.add(code(line));
      } else {
        readmeCode.append(line).append('\n');
      }
    }
    assertThat(readmeImports).as("the README block's imports").isNotEmpty();
    List<String> sourceImports =
        source.lines().filter(l -> l.startsWith("import ")).map(ReadmeSnippetsTest::code).toList();
    assertThat(sourceImports).as("imports the README shows").containsAll(readmeImports);
    List<String> used =
        sourceImports.stream()
            .filter(i -> !i.endsWith(".ServletContext;") && !i.endsWith(".DataSource;"))
            .toList();
    assertThat(readmeImports)
        .as("every import the snippet needs is shown (the method's parameters aside)")
        .containsAll(used);

    assertThat(code(readmeCode.toString()))
        .as("the README's ten lines, as code")
        .isNotBlank()
        .isEqualTo(code(region(source, "server-in-ten-lines")));
  }

  /** The body of the first ```java block after {@code heading}. */
  private static String javaBlockAfter(String markdown, String heading) {
    int at = markdown.indexOf(heading);
    assertThat(at).as("the README has the section %s", heading).isNotNegative();
    Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(markdown);
    assertThat(m.find(at)).as("a java block after %s", heading).isTrue();
    return m.group(1);
  }

  /** The lines between {@code // tag::name[]} and {@code // end::name[]}. */
  private static String region(String source, String name) {
    int from = source.indexOf("// tag::" + name + "[]");
    int to = source.indexOf("// end::" + name + "[]");
    assertThat(from).as("tag %s", name).isNotNegative();
    assertThat(to).as("end of %s", name).isGreaterThan(from);
    return source.substring(source.indexOf('\n', from) + 1, to);
  }

  /** Code only: line comments dropped, whitespace collapsed. */
  private static String code(String text) {
    return text.lines()
        .map(l -> l.replaceAll("//.*$", ""))
        .reduce("", (a, b) -> a + " " + b)
        .replaceAll("\\s+", " ")
        .replaceAll(" ?([().,;]) ?", "$1")
        .trim();
  }
}
