package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the public packages exported, internal not; no dependency beyond the JDK.
 */
class ModuleDescriptorTest {
  private static ModuleDescriptor descriptor() throws IOException {
    try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
      return ModuleDescriptor.read(in);
    }
  }

  @Test
  void exportsTheApiPackagesOnly() throws IOException {
    ModuleDescriptor d = descriptor();
    assertThat(d.name()).isEqualTo("dev.idempotency.client");
    assertThat(d.exports()).allSatisfy(e -> assertThat(e.isQualified()).isFalse());
    assertThat(
            d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("dev.idempotency.client", "dev.idempotency.client.http");
    assertThat(Path.of("target", "classes", "dev", "idempotency", "client", "internal"))
        .isDirectory();
    assertThat(d.opens()).isEmpty();
  }

  /**
   * java.net.http is transitive because the adapter's API speaks its types; at run time nothing
   * else is required. org.jspecify is required statically, for its annotations at compile time
   * only, and transitively.
   */
  @Test
  void requiresOnlyTheJdk() throws IOException {
    ModuleDescriptor d = descriptor();
    assertThat(
            d.requires().stream()
                .filter(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)))
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.name()).startsWith("java."));
    assertThat(
            d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name))
        .containsExactly("org.jspecify");
    // transitive as well: a module compiling against this API reads the annotations on its
    // signatures
    assertThat(d.requires())
        .anySatisfy(
            r -> {
              assertThat(r.name()).isEqualTo("org.jspecify");
              assertThat(r.modifiers())
                  .contains(
                      ModuleDescriptor.Requires.Modifier.STATIC,
                      ModuleDescriptor.Requires.Modifier.TRANSITIVE);
            });
    assertThat(d.requires())
        .anySatisfy(
            r -> {
              assertThat(r.name()).isEqualTo("java.net.http");
              assertThat(r.modifiers()).contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE);
            });
  }
}
