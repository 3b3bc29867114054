package dev.idempotency.spring.boot.autoconfigure.internal;

import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.web.servlet.AbstractFilterRegistrationBean;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;

/**
 * Fails start-up when the idempotency filter would run before Spring Security's filter chain: the
 * scope of a key is the authenticated caller, and before authentication there is none (every
 * guarded request would get 401, or with an anonymous scope all callers would share one).
 */
public final class FilterOrderCheck implements SmartInitializingSingleton {
  /** The bean name of Spring Security's filter chain. */
  static final String SECURITY_FILTER_CHAIN = "springSecurityFilterChain";

  private final ListableBeanFactory beans;
  private final String registrationName;

  /**
   * Checks the filter registered under {@code registrationName} against the security filter
   * registered in {@code beans}, once every singleton exists.
   */
  public FilterOrderCheck(ListableBeanFactory beans, String registrationName) {
    this.beans = beans;
    this.registrationName = registrationName;
  }

  @Override
  public void afterSingletonsInstantiated() {
    if (!beans.containsBean(registrationName)) {
      return;
    }
    AbstractFilterRegistrationBean<?> idempotencyFilter =
        beans.getBean(registrationName, AbstractFilterRegistrationBean.class);
    @SuppressWarnings(
        "rawtypes") // the registrations of every filter type, whatever their parameter
    Map<String, AbstractFilterRegistrationBean> registrations =
        beans.getBeansOfType(AbstractFilterRegistrationBean.class, false, false);
    for (AbstractFilterRegistrationBean<?> registration : registrations.values()) {
      if (registration instanceof DelegatingFilterProxyRegistrationBean security
          && SECURITY_FILTER_CHAIN.equals(security.getFilterName())
          && idempotencyFilter.getOrder() <= security.getOrder()) {
        throw new IllegalStateException(
            "The idempotency filter (idempotency.filter.order = "
                + idempotencyFilter.getOrder()
                + ") would run before Spring Security's filter chain (spring.security.filter.order"
                + " = "
                + security.getOrder()
                + "), where no caller is authenticated yet and a key has no scope: set"
                + " idempotency.filter.order above "
                + security.getOrder());
      }
    }
  }
}
