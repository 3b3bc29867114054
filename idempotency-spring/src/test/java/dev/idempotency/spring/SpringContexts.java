package dev.idempotency.spring;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/** Starts plain Spring contexts (no Spring Boot), as an application without Boot does. */
final class SpringContexts {
  private SpringContexts() {}

  static AnnotationConfigApplicationContext start(Class<?>... configurations) {
    return new AnnotationConfigApplicationContext(configurations);
  }

  /** The deepest cause of a failed start-up: the one that says why. */
  static Throwable rootCause(Throwable t) {
    Throwable cause = t;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }
}
