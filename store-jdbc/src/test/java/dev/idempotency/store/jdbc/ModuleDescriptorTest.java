package dev.idempotency.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor exports only the public package, requires the API and java.sql
 * transitively, and needs org.jspecify at compile time only.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyThePublicPackage() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target", "classes"))
            .find("dev.idempotency.store.jdbc")
            .orElseThrow()
            .descriptor();
    assertThat(d.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.idempotency.store.jdbc");
    assertThat(d.packages()).contains("dev.idempotency.store.jdbc.internal");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder("dev.idempotency.api", "java.sql");
    // at run time: org.jspecify is required statically, for its annotations at compile time only
    assertThat(d.requires())
        .filteredOn(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder("java.base", "dev.idempotency.api", "java.sql");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactly("org.jspecify");
  }
}
