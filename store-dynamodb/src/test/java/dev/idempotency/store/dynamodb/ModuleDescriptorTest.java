package dev.idempotency.store.dynamodb;

import dev.idempotency.testing.ModuleDescriptorAssert;
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
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.store.dynamodb")
        .exportsExactly("dev.idempotency.store.dynamodb")
        .containsPackages("dev.idempotency.store.dynamodb.internal")
        .requiresTransitivelyExactly(
            "dev.idempotency.api", "software.amazon.awssdk.services.dynamodb")
        .requiresAtRunTimeExactly(
            "java.base",
            "dev.idempotency.api",
            "software.amazon.awssdk.services.dynamodb",
            "software.amazon.awssdk.core",
            "software.amazon.awssdk.awscore")
        .requiresStaticallyExactly("org.jspecify");
  }
}
