package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module exports only its API package; internals stay hidden; it needs only the API module. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackageAndRequiresOnlyTheApiModule() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target/classes"))
            .find("dev.idempotency.core")
            .orElseThrow()
            .descriptor();
    assertThat(
            d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
        .containsExactly("dev.idempotency.core");
    assertThat(d.exports()).allMatch(e -> !e.isQualified());
    // at run time: org.jspecify is required statically, for its annotations at compile time only
    assertThat(
            d.requires().stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactlyInAnyOrder("java.base", "dev.idempotency.api");
    assertThat(
            d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactly("org.jspecify");
  }
}
