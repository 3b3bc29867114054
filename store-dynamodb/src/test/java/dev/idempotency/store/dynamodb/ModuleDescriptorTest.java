package dev.idempotency.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor exports only the public package, requires the API and the SDK's DynamoDB
 * module transitively (they are on the public signatures), and needs org.jspecify at compile time
 * only.
 */
class ModuleDescriptorTest {
  @Test
  void exportsOnlyThePublicPackage() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target", "classes"))
            .find("dev.idempotency.store.dynamodb")
            .orElseThrow()
            .descriptor();
    assertThat(d.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.idempotency.store.dynamodb");
    assertThat(d.packages()).contains("dev.idempotency.store.dynamodb.internal");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder(
            "dev.idempotency.api", "software.amazon.awssdk.services.dynamodb");
    assertThat(d.requires())
        .filteredOn(r -> !r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactlyInAnyOrder(
            "java.base",
            "dev.idempotency.api",
            "software.amazon.awssdk.services.dynamodb",
            "software.amazon.awssdk.core",
            "software.amazon.awssdk.awscore");
    assertThat(d.requires())
        .filteredOn(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
        .extracting(ModuleDescriptor.Requires::name)
        .containsExactly("org.jspecify");
  }
}
