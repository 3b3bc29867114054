package dev.idempotency.examples.springboot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A payments API guarded by the idempotency starter: {@code ./mvnw -pl examples/spring-boot -am
 * spring-boot:run} is not wired (the module has no Boot plugin); run {@code main} from the IDE or
 * the jar's class path. The curl session is in {@code docs/spring-boot.md}.
 */
@SpringBootApplication
public class PaymentsApplication {
  /** Starts the app on port 8080 (or {@code server.port}). */
  public static void main(String[] args) {
    SpringApplication.run(PaymentsApplication.class, args);
  }
}
