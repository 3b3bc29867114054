package dev.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module exports exactly the API packages and needs nothing but java.base. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackagesAndRequiresNothing() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target/classes"))
            .find("dev.idempotency.api")
            .orElseThrow()
            .descriptor();
    assertThat(
            d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(
            "dev.idempotency", "dev.idempotency.spi", "dev.idempotency.event");
    assertThat(d.exports()).allMatch(e -> !e.isQualified());
    // at run time: org.jspecify is required statically, for its annotations at compile time only
    assertThat(
            d.requires().stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactly("java.base");
    assertThat(
            d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactly("org.jspecify");
  }
}
