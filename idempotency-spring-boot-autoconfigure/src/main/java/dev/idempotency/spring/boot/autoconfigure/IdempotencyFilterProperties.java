package dev.idempotency.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code idempotency.filter.*} properties: the servlet filter's registration. A group of {@link
 * IdempotencyProperties}.
 */
public class IdempotencyFilterProperties {
  /** The defaults. */
  public IdempotencyFilterProperties() {}

  /**
   * The filter's order; it must come after Spring Security's filter chain
   * (spring.security.filter.order, -100 by default), or start-up fails.
   */
  private int order = -90;

  /** The URL patterns the filter is mapped to. */
  private List<String> urlPatterns = new ArrayList<>(List.of("/*"));

  public int getOrder() {
    return order;
  }

  public void setOrder(int order) {
    this.order = order;
  }

  public List<String> getUrlPatterns() {
    return urlPatterns;
  }

  public void setUrlPatterns(List<String> urlPatterns) {
    this.urlPatterns = urlPatterns;
  }
}
