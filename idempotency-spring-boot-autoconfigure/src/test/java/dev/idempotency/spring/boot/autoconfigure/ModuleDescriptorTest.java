package dev.idempotency.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module descriptor: only the configuration package exported, and opened to Spring. */
class ModuleDescriptorTest {
  @Test
  void exportsTheConfigurationPackageOnly() throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(Path.of("target", "classes", "module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }

    assertThat(d.name()).isEqualTo("dev.idempotency.spring.boot.autoconfigure");
    assertThat(d.exports())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo("dev.idempotency.spring.boot.autoconfigure");
              assertThat(e.isQualified()).isFalse();
            });
    assertThat(d.opens())
        .singleElement()
        .satisfies(
            o -> assertThat(o.source()).isEqualTo("dev.idempotency.spring.boot.autoconfigure"));
    assertThat(d.requires())
        .extracting(ModuleDescriptor.Requires::name)
        .contains("dev.idempotency.servlet", "spring.boot.autoconfigure", "org.jspecify");
  }
}
