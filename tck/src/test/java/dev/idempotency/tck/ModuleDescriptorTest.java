package dev.idempotency.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Tests run on the class path, so this checks the compiled module-info instead: the TCK exports
 * only its API package, keeps {@code internal} hidden, opens the contract package to JUnit alone,
 * and needs org.jspecify at compile time only.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheContractPackageAndOpensItToJunit() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target/classes"))
            .find("dev.idempotency.tck")
            .orElseThrow()
            .descriptor();
    assertThat(
            d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
        .containsExactly("dev.idempotency.tck");
    assertThat(d.opens())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.source()).isEqualTo("dev.idempotency.tck");
              assertThat(o.targets()).isEqualTo(Set.of("org.junit.platform.commons"));
            });
    assertThat(
            d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                .map(ModuleDescriptor.Requires::name))
        .containsExactlyInAnyOrder("dev.idempotency.api", "org.junit.jupiter.api");
    // at run time: org.jspecify is required statically, for its annotations at compile time only
    assertThat(
            d.requires().stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactlyInAnyOrder(
            "java.base", "dev.idempotency.api", "org.junit.jupiter.api", "org.assertj.core");
    assertThat(
            d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactly("org.jspecify");
  }
}
