package dev.idempotency.client.resilience4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported, the client module and the stack's Resilience4j
 * modules transitive.
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiAndRequiresTheClientAndTheStackTransitively() throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }

    assertThat(d.name()).isEqualTo("dev.idempotency.client.resilience4j");
    assertThat(d.exports())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo("dev.idempotency.client.resilience4j");
              assertThat(e.isQualified()).isFalse();
            });
    assertThat(d.opens()).isEmpty();
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder(
            "dev.idempotency.client",
            "io.github.resilience4j.circuitbreaker",
            "io.github.resilience4j.ratelimiter",
            "io.github.resilience4j.bulkhead");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactly("org.jspecify");
  }
}
