package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module exports only its API package; internals stay hidden; at run time it needs only the
 * core module.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackageAndRequiresOnlyCore() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target/classes"))
            .find("dev.idempotency.http")
            .orElseThrow()
            .descriptor();
    assertThat(
            d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
        .containsExactly("dev.idempotency.http");
    assertThat(d.exports()).allMatch(e -> !e.isQualified());
    // org.jspecify is required statically, for its annotations at compile time only, and
    // transitively, so that a module compiling against this API reads the annotations on its
    // signatures
    Map<String, Set<ModuleDescriptor.Requires.Modifier>> requires =
        d.requires().stream()
            .collect(
                Collectors.toMap(
                    ModuleDescriptor.Requires::name, ModuleDescriptor.Requires::modifiers));
    assertThat(requires).containsOnlyKeys("java.base", "dev.idempotency.core", "org.jspecify");
    assertThat(requires.get("dev.idempotency.core"))
        .doesNotContain(ModuleDescriptor.Requires.Modifier.STATIC);
    assertThat(requires.get("org.jspecify"))
        .containsExactlyInAnyOrder(
            ModuleDescriptor.Requires.Modifier.STATIC,
            ModuleDescriptor.Requires.Modifier.TRANSITIVE);
  }
}
