package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as a real process on the module path, as scripts/openapi-check.sh runs it: the
 * module's jar and its runtime dependencies (target/runtime-classpath.txt, written by the build),
 * swagger-parser's jars as automatic modules. Proves the descriptor resolves every module the
 * parser needs at run time, which compiling it does not.
 */
class ModulePathIT {
  @TempDir Path dir;

  record Exit(int status, String output) {}

  private Exit run(Path spec) throws IOException, InterruptedException {
    Path jar;
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      jar =
          files
              .filter(
                  p ->
                      p.getFileName()
                          .toString()
                          .matches("idempotency-openapi-[^-]+(-SNAPSHOT)?\\.jar"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no module jar in target: run through verify"));
    }
    String dependencies = Files.readString(Path.of("target", "runtime-classpath.txt")).strip();
    Path output = dir.resolve("output.txt");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path",
                jar + File.pathSeparator + dependencies,
                "--module",
                "dev.idempotency.openapi/dev.idempotency.openapi.OpenApiCli",
                "check",
                spec.toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the process ends within 60 s").isTrue();
      return new Exit(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void checkRunsOnTheModulePath() throws Exception {
    Exit exit = run(Specs.spec("multi-file/openapi.yaml"));

    assertThat(exit.output())
        .doesNotContain("Exception")
        .contains("key_max_length_over_255")
        .contains("2 operations:");
    assertThat(exit.status()).isEqualTo(OpenApiCli.FAILING);
  }

  @Test
  void anUnreadableDocumentExitsTwoWithoutAStackTrace() throws Exception {
    Exit exit = run(Specs.spec("not-yaml.yaml"));

    assertThat(exit.output()).contains("line 2, column 7").doesNotContain("\tat ");
    assertThat(exit.status()).isEqualTo(OpenApiCli.UNUSABLE);
  }
}
