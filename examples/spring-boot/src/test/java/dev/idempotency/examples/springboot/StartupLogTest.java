package dev.idempotency.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A start of the example app (Security, Flyway, Actuator, the starter) logs no warning of the
 * library's: no WARN line of a {@code dev.idempotency} logger, and no bean of any kind built too
 * early for every post-processor (Spring's BeanPostProcessorChecker, which an advisor that fetches
 * beans while the post-processors are being registered sets off). A database of its own, so that
 * the context starts here and not in a cached one.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.datasource.url=jdbc:h2:mem:startup-log;DB_CLOSE_DELAY=-1")
@ExtendWith(OutputCaptureExtension.class)
class StartupLogTest {
  @Test
  void aStartLogsNoWarningOfTheLibrary(CapturedOutput output) {
    List<String> lines = output.getAll().lines().toList();
    assertThat(lines)
        .as("the start was captured")
        .anyMatch(l -> l.contains("Started StartupLogTest in"));
    assertThat(lines)
        .as("beans built before every post-processor was registered")
        .noneMatch(
            l -> l.contains("is not eligible for getting processed by all BeanPostProcessors"));
    assertThat(lines)
        .as("warnings of the library")
        .noneMatch(l -> l.contains(" WARN ") && l.contains("dev.idempotency"));
  }
}
