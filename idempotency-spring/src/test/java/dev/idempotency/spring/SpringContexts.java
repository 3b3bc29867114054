package dev.idempotency.spring;

import dev.idempotency.core.IdempotencyEngine;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Starts plain Spring contexts (no Spring Boot), as an application without Boot does. */
final class SpringContexts {
  private SpringContexts() {}

  /**
   * The advisor over the context's engine bean, applied by a plain auto-proxy creator: import it
   * beside a configuration that defines the engine and the beans.
   */
  @Configuration(proxyBeanMethods = false)
  static class Advised {
    @Bean
    static DefaultAdvisorAutoProxyCreator autoProxy() {
      return new DefaultAdvisorAutoProxyCreator();
    }

    @Bean
    IdempotentMethods idempotentMethods(IdempotencyEngine engine) {
      return IdempotentMethods.builder(engine).build();
    }
  }

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
