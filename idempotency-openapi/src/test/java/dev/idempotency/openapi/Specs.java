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

  /** The demo payments API's document, from the examples module's resources. */
  static Path demo() {
    return resource("/payments-openapi.yaml");
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
