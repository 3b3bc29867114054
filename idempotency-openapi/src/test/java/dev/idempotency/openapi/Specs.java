package dev.idempotency.openapi;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.Objects;

/** The test documents under src/test/resources/specs, and the demo's in examples. */
final class Specs {
  private Specs() {}

  static Path spec(String name) {
    return resource("/specs/" + name);
  }

  /**
   * The demo payments API's document, in the examples module's sources (its class path copy may be
   * inside a jar, which a Path cannot name); tests run in this module's directory.
   */
  static Path demo() {
    Path source = Path.of("..", "examples", "src", "main", "resources", "payments-openapi.yaml");
    if (!java.nio.file.Files.isRegularFile(source)) {
      throw new IllegalStateException("no " + source.toAbsolutePath() + ": run from the module");
    }
    return source;
  }

  private static Path resource(String name) {
    URL url = Objects.requireNonNull(Specs.class.getResource(name), name);
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
