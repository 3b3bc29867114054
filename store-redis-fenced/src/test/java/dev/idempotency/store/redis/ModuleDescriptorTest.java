package dev.idempotency.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor exports only the public package, requires the API and Lettuce transitively
 * (its connection types are in the builder), and needs org.jspecify at compile time only.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyThePublicPackage() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target", "classes"))
            .find("dev.idempotency.store.redis")
            .orElseThrow()
            .descriptor();
    assertThat(d.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.idempotency.store.redis");
    assertThat(d.packages()).contains("dev.idempotency.store.redis.internal");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder("dev.idempotency.api", "lettuce.core");
    assertThat(d.requires())
        .filteredOn(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder("java.base", "dev.idempotency.api", "lettuce.core");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactly("org.jspecify");
  }
}
