package dev.idempotency.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported (not internal), the engine, the client, the
 * Spring and Jackson types of the API transitive, and spring-jdbc, spring-tx and spring-web
 * optional (static).
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiOnlyAndRequiresTheOptionalSpringModulesStatically() throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }

    assertThat(d.name()).isEqualTo("dev.idempotency.spring");
    assertThat(d.exports())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo("dev.idempotency.spring");
              assertThat(e.isQualified()).isFalse();
            });
    assertThat(d.opens()).isEmpty();
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder(
            "dev.idempotency.core",
            "dev.idempotency.client",
            "spring.aop",
            "spring.core",
            "spring.web",
            "tools.jackson.databind",
            "java.sql");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder("org.jspecify", "spring.jdbc", "spring.tx", "spring.web");
  }
}
