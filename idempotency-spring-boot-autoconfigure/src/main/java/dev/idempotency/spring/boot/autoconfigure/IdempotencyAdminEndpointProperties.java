package dev.idempotency.spring.boot.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idempotency.admin-endpoint.*} properties: the {@code idempotency} Actuator endpoint.
 */
@ConfigurationProperties("idempotency.admin-endpoint")
public class IdempotencyAdminEndpointProperties {
  /** The defaults. */
  public IdempotencyAdminEndpointProperties() {}

  /**
   * Whether the endpoint's write operations (release, redrive) act. Off by default: a release makes
   * a request run again, so turn it on only behind Spring Security, for operators.
   */
  private boolean writesEnabled = false;

  public boolean isWritesEnabled() {
    return writesEnabled;
  }

  public void setWritesEnabled(boolean writesEnabled) {
    this.writesEnabled = writesEnabled;
  }
}
