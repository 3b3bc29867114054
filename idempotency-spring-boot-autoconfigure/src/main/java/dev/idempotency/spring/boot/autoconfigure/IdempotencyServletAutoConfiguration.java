package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.spring.boot.autoconfigure.internal.EngineExtension;
import dev.idempotency.spring.boot.autoconfigure.internal.FilterOrderCheck;
import dev.idempotency.spring.boot.autoconfigure.internal.TimedFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The servlet filter, registered for the {@code REQUEST} dispatcher at {@code
 * idempotency.filter.order} (after Spring Security's filter chain, so that the scope is the
 * authenticated principal), and the start-up check that it stays after it. Works with Spring MVC:
 * the filter captures what the {@code DispatcherServlet} writes, whether a {@code ResponseEntity},
 * a {@code @ResponseBody} object or an error a {@code @ControllerAdvice} rendered.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({IdempotencyFilter.class, FilterRegistrationBean.class})
@ConditionalOnBean(IdempotencyHttp.class)
public final class IdempotencyServletAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyServletAutoConfiguration() {}

  /** The bean name of the filter's registration. */
  public static final String REGISTRATION = "idempotencyFilterRegistration";

  /** The filter's registration; one of the application's under the same name wins. */
  @Bean(REGISTRATION)
  @ConditionalOnMissingBean(name = REGISTRATION)
  FilterRegistrationBean<Filter> idempotencyFilterRegistration(
      IdempotencyHttp http,
      IdempotencyProperties properties,
      ObjectProvider<EngineExtension> extensions) {
    List<EngineExtension> timers = extensions.orderedStream().toList();
    Filter filter = new IdempotencyFilter(http);
    FilterRegistrationBean<Filter> registration =
        new FilterRegistrationBean<>(timers.isEmpty() ? filter : new TimedFilter(filter, timers));
    registration.setName("idempotencyFilter");
    registration.setDispatcherTypes(DispatcherType.REQUEST);
    registration.setOrder(properties.getFilter().getOrder());
    registration.setUrlPatterns(properties.getFilter().getUrlPatterns());
    return registration;
  }

  /** Fails start-up when the filter would run before Spring Security's. */
  @Bean
  static FilterOrderCheck idempotencyFilterOrderCheck(ListableBeanFactory beans) {
    return new FilterOrderCheck(beans, REGISTRATION);
  }
}
