package dev.idempotency.micrometer.monitoring;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the binaries of Debian's {@code prometheus} package ({@code promtool}, {@code prometheus}),
 * which {@code scripts/services.sh} installs: in CI ({@code CI=true}) a missing one fails the test,
 * elsewhere it skips it with a message.
 */
final class DebianBinaries {
  private DebianBinaries() {}

  /** {@code name} on the PATH; fails in CI, aborts (skips) elsewhere, when it is not there. */
  static Path required(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String entry : path.split(File.pathSeparator)) {
      if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, name))) {
        return Path.of(entry, name);
      }
    }
    String message =
        name
            + " is not on the PATH: install Debian's prometheus package (scripts/services.sh does)";
    if ("true".equals(System.getenv("CI"))) {
      fail(message);
    }
    Assumptions.abort(message);
    throw new AssertionError(message); // not reached: abort throws
  }
}
