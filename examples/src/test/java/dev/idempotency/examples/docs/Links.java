package dev.idempotency.examples.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the relative links of a Markdown document: the file exists and, for a Markdown file, the
 * anchor is one of its headings as GitHub makes them. Links to the web are not followed.
 */
final class Links {
  private Links() {}

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6} +(.*?) *#*$");

  /** The broken links of {@code doc}, one line each. */
  static List<String> problems(Path root, Path doc) {
    List<String> problems = new ArrayList<>();
    String name = root.relativize(doc).toString().replace('\\', '/');
    List<String> lines = DocSnippetsTest.read(doc).lines().toList();
    boolean inCode = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("```")) {
        inCode = !inCode;
        continue;
      }
      if (inCode) {
        continue;
      }
      Matcher m = LINK.matcher(line);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("[a-z]+:.*")) {
          continue;
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        String at = name + ":" + (i + 1) + ": " + target;
        if (!Files.exists(resolved)) {
          problems.add(at + ": no such file");
        } else if (anchor != null
            && resolved.toString().endsWith(".md")
            && !anchors(resolved).contains(anchor)) {
          problems.add(at + ": no such heading in " + root.relativize(resolved));
        }
      }
    }
    return problems;
  }

  /** The anchors GitHub gives the headings of a Markdown file (outside code blocks). */
  static Set<String> anchors(Path markdown) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inCode = false;
    for (String line : DocSnippetsTest.read(markdown).lines().toList()) {
      if (line.startsWith("```")) {
        inCode = !inCode;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (!inCode && m.matches()) {
        String slug = slug(m.group(1));
        int n = seen.merge(slug, 1, Integer::sum);
        anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
      }
    }
    return anchors;
  }

  /**
   * GitHub's anchor for a heading: lower case, punctuation but hyphens and underscores dropped,
   * each space a hyphen.
   */
  static String slug(String heading) {
    return heading
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "")
        .replace(' ', '-');
  }
}
