package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.spring.IdempotentMethods;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idempotency.methods.*} properties: {@code @Idempotent} methods ({@code
 * idempotency-spring}), auto-configured when that module is on the class path.
 */
@ConfigurationProperties(IdempotentMethodsProperties.PREFIX)
public class IdempotentMethodsProperties {
  /** The properties' prefix. */
  public static final String PREFIX = "idempotency.methods";

  /** The defaults. */
  public IdempotentMethodsProperties() {}

  /** Whether {@code @Idempotent} methods are advised. */
  private boolean enabled = true;

  /** The scope of an {@code @Idempotent} method that names none. */
  private String defaultScope = IdempotentMethods.DEFAULT_SCOPE;

  /**
   * Whether an {@code @Idempotent} method may run inside a transaction its caller began. Off: the
   * key would complete before that transaction commits, and a rollback would leave a replay of a
   * success that never happened.
   */
  private boolean allowSurroundingTransactions;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getDefaultScope() {
    return defaultScope;
  }

  public void setDefaultScope(String defaultScope) {
    this.defaultScope = defaultScope;
  }

  public boolean isAllowSurroundingTransactions() {
    return allowSurroundingTransactions;
  }

  public void setAllowSurroundingTransactions(boolean allowSurroundingTransactions) {
    this.allowSurroundingTransactions = allowSurroundingTransactions;
  }
}
