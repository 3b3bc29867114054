package dev.idempotency.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module exports only the filter's package and needs only the HTTP module and the Servlet API.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheFilterPackage() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target/classes"))
            .find("dev.idempotency.servlet")
            .orElseThrow()
            .descriptor();
    assertThat(
            d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
        .containsExactly("dev.idempotency.servlet");
    // at run time: org.jspecify is required statically, for its annotations at compile time only
    assertThat(
            d.requires().stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactlyInAnyOrder("java.base", "dev.idempotency.http", "jakarta.servlet");
    assertThat(
            d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactly("org.jspecify");
  }
}
