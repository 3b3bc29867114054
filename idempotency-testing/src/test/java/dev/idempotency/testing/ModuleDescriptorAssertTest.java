package dev.idempotency.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.module.ModuleDescriptor;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each assertion fails when the descriptor differs, and says how: the module, the part of the
 * descriptor, the names missing and unexpected. Checked against the API module's descriptor
 * (exports dev.idempotency, .spi and .event; requires static org.jspecify; opens nothing).
 */
class ModuleDescriptorAssertTest {
  private ModuleDescriptorAssert api;

  @BeforeEach
  void readTheApiDescriptor() throws Exception {
    api = ModuleDescriptorAssert.of(ApiModuleDescriptorTest.apiLocation(), "dev.idempotency.api");
  }

  @Test
  void aModuleThatIsNotThereIsNamedWithTheOnesThatAre() throws Exception {
    Path location = ApiModuleDescriptorTest.apiLocation();
    assertThatThrownBy(() -> ModuleDescriptorAssert.of(location, "dev.idempotency.nope"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("no module dev.idempotency.nope")
        .hasMessageContaining("found [dev.idempotency.api]");
  }

  @Test
  void exportsExactlyNamesTheMissingAndTheUnexpectedPackages() {
    assertThatThrownBy(() -> api.exportsExactly("dev.idempotency", "dev.idempotency.core"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "module dev.idempotency.api exports: missing [dev.idempotency.core], unexpected"
                + " [dev.idempotency.event, dev.idempotency.internal, dev.idempotency.spi]");
  }

  @Test
  void exportsOnlyQualifiedNamesTheModulesMissingAndUnexpected() {
    assertThatThrownBy(
            () -> api.exportsOnlyQualified("dev.idempotency.internal", "dev.idempotency.core"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "module dev.idempotency.api exports dev.idempotency.internal to: missing [],"
                + " unexpected [dev.idempotency.tck]");
    assertThatThrownBy(() -> api.exportsOnlyQualified("dev.idempotency.spi"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "qualified exports: missing [dev.idempotency.spi], unexpected"
                + " [dev.idempotency.internal]");
  }

  @Test
  void opensAreCheckedBothForThePackageAndItsTargets() {
    assertThatThrownBy(() -> api.opensExactly("dev.idempotency", "org.junit.platform.commons"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module dev.idempotency.api opens: missing [dev.idempotency]");
  }

  @Test
  void aQualifiedExportIsNamedWithItsTargets() {
    ModuleDescriptor qualified =
        ModuleDescriptor.newModule("m")
            .exports("p")
            .exports(Set.of(), "q", Set.of("friend"))
            .build();
    ModuleDescriptorAssert m = ModuleDescriptorAssert.of(qualified);

    m.exportsExactly("p", "q");
    assertThatThrownBy(m::exportsNothingQualified)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module m exports to named modules only: [q to [friend]]");
  }

  @Test
  void opensNothingAndOpensExactlyNameWhatIsOpenedAndToWhom() {
    ModuleDescriptorAssert m =
        ModuleDescriptorAssert.of(
            ModuleDescriptor.newModule("m").opens(Set.of(), "p", Set.of("a", "b")).build());

    m.opensExactly("p", "b", "a");
    assertThatThrownBy(m::opensNothing)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module m opens: missing [], unexpected [p]");
    assertThatThrownBy(() -> m.opensExactly("p", "a"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module m opens p to: missing [], unexpected [b]");
    assertThatThrownBy(() -> m.opensExactly("p"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module m opens p to: missing [], unexpected [a, b]");
  }

  @Test
  void eachKindOfRequiresIsCheckedOnItsOwn() {
    assertThatThrownBy(() -> api.requiresAtRunTimeExactly("java.base", "org.jspecify"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "module dev.idempotency.api requires at run time (not static): missing"
                + " [org.jspecify], unexpected []");
    assertThatThrownBy(() -> api.requiresStaticallyExactly())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("requires static: missing [], unexpected [org.jspecify]");
    assertThatThrownBy(() -> api.requiresTransitivelyExactly("org.jspecify"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("requires transitive: missing [org.jspecify], unexpected []");
    assertThatThrownBy(() -> api.requires("java.sql"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module dev.idempotency.api does not require [java.sql]");
    assertThatThrownBy(() -> api.doesNotRequire("java.sql", "org.jspecify"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module dev.idempotency.api requires [org.jspecify] after all");
  }

  @Test
  void containsPackagesNamesTheMissingOnes() {
    assertThatThrownBy(() -> api.containsPackages("dev.idempotency", "dev.idempotency.nope"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("module dev.idempotency.api has no package [dev.idempotency.nope]");
  }
}
