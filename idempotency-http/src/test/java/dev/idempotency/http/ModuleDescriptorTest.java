package dev.idempotency.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module exports only its API package; internals stay hidden; it needs only the core module. */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyTheApiPackageAndRequiresOnlyCore() {
    ModuleDescriptor d = ModuleFinder.of(Path.of("target/classes")).find("dev.idempotency.http").orElseThrow()
        .descriptor();
    assertThat(d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
        .containsExactly("dev.idempotency.http");
    assertThat(d.exports()).allMatch(e -> !e.isQualified());
    assertThat(d.requires().stream().map(ModuleDescriptor.Requires::name))
        .containsExactlyInAnyOrder("java.base", "dev.idempotency.core");
  }
}
