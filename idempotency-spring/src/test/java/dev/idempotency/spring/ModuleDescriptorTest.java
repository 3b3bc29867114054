package dev.idempotency.spring;

import dev.idempotency.testing.ModuleDescriptorAssert;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor: the API package exported, the internal one only to the Spring Boot
 * auto-configuration (which binds the store's transaction with it), the engine, the client, the
 * Spring, Jackson and JPA types of the API transitive, and spring-jdbc, spring-tx, spring-web, JPA,
 * Hibernate and spring-orm optional (static).
 */
class ModuleDescriptorTest {
  @Test
  void exportsTheApiOnlyAndRequiresTheOptionalSpringModulesStatically() {
    ModuleDescriptorAssert.of(Path.of("target", "classes"), "dev.idempotency.spring")
        .exportsExactly("dev.idempotency.spring", "dev.idempotency.spring.internal")
        .exportsOnlyQualified(
            "dev.idempotency.spring.internal", "dev.idempotency.spring.boot.autoconfigure")
        .opensNothing()
        .requiresTransitivelyExactly(
            "dev.idempotency.core",
            "dev.idempotency.client",
            "spring.aop",
            "spring.core",
            "spring.web",
            "tools.jackson.databind",
            "java.sql",
            "jakarta.persistence")
        .requiresStaticallyExactly(
            "org.jspecify",
            "spring.jdbc",
            "spring.tx",
            "spring.web",
            "jakarta.persistence",
            "org.hibernate.orm.core",
            "spring.orm");
  }
}
