package dev.idempotency.openapi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.zip.GZIPInputStream;

/** The gzipped public documents under src/test/resources/real-specs, unpacked for a test. */
final class RealSpecs {
  private RealSpecs() {}

  /** Unpacks {@code name} (a {@code .gz} of real-specs) into {@code dir}. */
  static Path unpack(Path dir, String name) throws IOException {
    Path target = dir.resolve(name.replace(".gz", ""));
    try (InputStream in =
        new GZIPInputStream(
            Objects.requireNonNull(
                RealSpecs.class.getResourceAsStream("/real-specs/" + name), name))) {
      Files.copy(in, target);
    }
    return target;
  }
}
