package dev.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Documents, comments and javadoc never claim "exactly-once": the true claim is effectively-once
 * within the key scope and replay window. A line may name exactly-once only to say it is impossible
 * or not what we do.
 */
class NoExactlyOnceClaimTest {
  private static final Pattern CLAIM = Pattern.compile("exactly[- ]once", Pattern.CASE_INSENSITIVE);
  private static final Pattern DENIAL =
      Pattern.compile(
          "impossible|\\bnot\\b|\\bnever\\b|\\bno\\b|cannot|can't|isn't|myth|false|nothing",
          Pattern.CASE_INSENSITIVE);

  @Test
  void noFileClaimsExactlyOnce() throws IOException {
    Path root = projectRoot();
    List<String> claims = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      files
          .filter(Files::isRegularFile)
          .filter(
              p -> {
                String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
                return name.endsWith(".md") || name.endsWith(".java");
              })
          .filter(
              p ->
                  root.relativize(p)
                      .toString()
                      .split("[/\\\\]")[0]
                      .chars()
                      .noneMatch(c -> c == '.'))
          .filter(
              p -> !p.toString().contains("/target/") && !p.toString().contains("/node_modules/"))
          .forEach(
              p -> {
                try {
                  List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
                  for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    // prose wraps: the denial may stand on the next line of the same sentence
                    String sentence = i + 1 < lines.size() ? line + " " + lines.get(i + 1) : line;
                    if ((CLAIM.matcher(line).find() || claimSpansBreak(line, lines, i))
                        && !DENIAL.matcher(sentence).find()
                        && !p.getFileName().toString().equals("NoExactlyOnceClaimTest.java")) {
                      claims.add(root.relativize(p) + ":" + (i + 1) + ": " + line.strip());
                    }
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
    assertThat(claims)
        .as(
            "these lines seem to claim exactly-once delivery, which is impossible; say effectively-once within"
                + " the key scope and replay window instead")
        .isEmpty();
  }

  /** Whether the claim starts on line {@code i} and ends on the next ("exactly" | "once"). */
  private static boolean claimSpansBreak(String line, List<String> lines, int i) {
    if (i + 1 >= lines.size()) {
      return false;
    }
    String end = line.stripTrailing();
    Matcher m = CLAIM.matcher(end + " " + lines.get(i + 1).strip());
    while (m.find()) {
      if (m.start() < end.length() && m.end() > end.length()) {
        return true;
      }
    }
    return false;
  }

  /** The repository root: the nearest directory upwards that holds the Maven wrapper. */
  private static Path projectRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("no mvnw found above " + Path.of("").toAbsolutePath()).isNotNull();
    return dir;
  }
}
