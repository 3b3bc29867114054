package dev.idempotency.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported (not internal), idempotency-http transitive (its
 * EndpointRule is in the route table's signature), swagger-parser required but not transitive.
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiAndRequiresHttpTransitively() throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }

    assertThat(d.name()).isEqualTo("dev.idempotency.openapi");
    assertThat(d.exports())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo("dev.idempotency.openapi");
              assertThat(e.isQualified()).isFalse();
            });
    assertThat(d.opens()).isEmpty();
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactly("dev.idempotency.http");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactly("org.jspecify");
    assertThat(d.requires())
        .extracting(ModuleDescriptor.Requires::name)
        .contains("swagger.parser.v3", "java.net.http", "com.fasterxml.jackson.databind");
  }
}
