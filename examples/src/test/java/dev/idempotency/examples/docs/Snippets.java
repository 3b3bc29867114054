package dev.idempotency.examples.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the Java blocks of a Markdown document and holds each to the region its marker names. Kept
 * apart from {@link DocSnippetsTest} so that the test can run it on made-up documents and show that
 * each kind of drift is caught.
 */
final class Snippets {
  private Snippets() {}

  /**
   * A Java block, with the marker on the line before its fence when there is one: group 1 the
   * marker's {@code Class#region}, group 2 the block's body.
   */
  static final Pattern BLOCK =
      Pattern.compile("(?m)(?:^<!-- snippet: (\\S+) -->\\n)?^```java\\n(.*?)^```$", Pattern.DOTALL);

  /**
   * What is wrong with the Java blocks of {@code markdown}, one line each, naming {@code file} and
   * the fence's line.
   *
   * @param sources a class's source text by its simple name, null when there is none
   */
  static List<String> problems(String file, String markdown, Function<String, String> sources) {
    List<String> problems = new ArrayList<>();
    Matcher m = BLOCK.matcher(markdown);
    while (m.find()) {
      int fence = m.start(2) - "```java\n".length();
      String at = file + ":" + lineOf(markdown, fence) + ": ";
      String marker = m.group(1);
      String body = m.group(2);
      if (marker == null) {
        problems.add(
            at
                + "a java block with no <!-- snippet: Class#region --> marker on the line before"
                + " its fence: "
                + body.lines().findFirst().orElse(""));
        continue;
      }
      problems.addAll(mismatches(at, marker, body, sources));
    }
    return problems;
  }

  private static List<String> mismatches(
      String at, String marker, String body, Function<String, String> sources) {
    int hash = marker.indexOf('#');
    if (hash < 0) {
      return List.of(at + "the marker " + marker + " is not Class#region");
    }
    String className = marker.substring(0, hash);
    String regionName = marker.substring(hash + 1);
    String source = sources.apply(className);
    if (source == null) {
      return List.of(at + "no class " + className + " under a src/test/java");
    }
    String region = region(source, regionName);
    if (region == null) {
      return List.of(at + "no region " + regionName + " in " + className);
    }
    List<String> problems = new ArrayList<>();
    StringBuilder code = new StringBuilder();
    List<String> classImports = imports(source);
    for (String line : body.lines().toList()) {
      if (line.startsWith("import ")) {
        if (!classImports.contains(code(line))) {
          problems.add(at + className + " has no " + code(line));
        }
      } else {
        code.append(line).append('\n');
      }
    }
    String shown = code(code.toString());
    String compiled = code(region);
    if (shown.isEmpty() || !shown.equals(compiled)) {
      problems.add(
          at
              + "the block differs from "
              + marker
              + " as code; the block: "
              + shown
              + " ; the region: "
              + compiled);
    }
    return problems;
  }

  /** The lines between {@code // tag::name[]} and {@code // end::name[]}, or null. */
  static String region(String source, String name) {
    int from = source.indexOf("// tag::" + name + "[]");
    int to = source.indexOf("// end::" + name + "[]");
    if (from < 0 || to < from) {
      return null;
    }
    return source.substring(source.indexOf('\n', from) + 1, to);
  }

  /** The import lines of a source file, as code. */
  static List<String> imports(String source) {
    return source.lines().filter(l -> l.startsWith("import ")).map(Snippets::code).toList();
  }

  /**
   * Code only: line comments dropped (a {@code //} inside a string literal, as in a URI, is code),
   * whitespace collapsed and dropped around punctuation, since the formatter and the documents
   * break and align lines differently.
   */
  static String code(String text) {
    StringBuilder all = new StringBuilder();
    for (String line : text.lines().toList()) {
      all.append(' ').append(withoutLineComment(line));
    }
    return all.toString().replaceAll("\\s+", " ").replaceAll(" ?([().,;]) ?", "$1").trim();
  }

  private static String withoutLineComment(String line) {
    boolean inString = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (inString && c == '\\') {
        i++;
      } else if (c == '"') {
        inString = !inString;
      } else if (!inString && c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/') {
        return line.substring(0, i);
      }
    }
    return line;
  }

  private static int lineOf(String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }
}
