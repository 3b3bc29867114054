package dev.idempotency.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module descriptor: the API package exported, core and Micrometer transitive. */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiOnlyAndRequiresCoreAndMicrometerTransitively() throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }

    assertThat(d.name()).isEqualTo("dev.idempotency.micrometer");
    assertThat(d.exports())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo("dev.idempotency.micrometer");
              assertThat(e.isQualified()).isFalse();
            });
    assertThat(d.opens()).isEmpty();
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder("dev.idempotency.core", "micrometer.core");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactly("org.jspecify");
  }
}
