package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.servlet.IdempotencyFilter;
import dev.idempotency.spring.boot.autoconfigure.internal.EngineExtension;
import dev.idempotency.spring.boot.autoconfigure.internal.FilterOrderCheck;
import dev.idempotency.spring.boot.autoconfigure.internal.JoinedEntityManagerFactory;
import dev.idempotency.spring.boot.autoconfigure.internal.SpringTransactionFilter;
import dev.idempotency.spring.boot.autoconfigure.internal.TimedFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * The servlet filter, registered for the {@code REQUEST} dispatcher at {@code
 * idempotency.filter.order} (after Spring Security's filter chain, so that the scope is the
 * authenticated principal), and the start-up check that it stays after it. Works with Spring MVC:
 * the filter captures what the {@code DispatcherServlet} writes, whether a {@code ResponseEntity},
 * a {@code @ResponseBody} object or an error a {@code @ControllerAdvice} rendered.
 *
 * <p>When the store is the JDBC store built over the application's one {@code DataSource}, a
 * request run in one transaction runs the application inside a Spring transaction on the store's
 * connection ({@link SpringTransactionFilter}): {@code JdbcTemplate} and {@code @Transactional}
 * join it, so the application's writes commit with the stored response, or roll back with the
 * claim. That needs idempotency-spring (the starter brings it) and spring-jdbc. With the
 * application's one JPA {@code EntityManagerFactory} built on that {@code DataSource}, Hibernate
 * and spring-orm, JPA joins it too ({@link JoinedEntityManagerFactory}): a Hibernate session on the
 * store's connection is the request's {@code EntityManager}, and a {@code JpaTransactionManager}'s
 * {@code @Transactional} joins it.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({IdempotencyFilter.class, FilterRegistrationBean.class})
@ConditionalOnBean(IdempotencyHttp.class)
public final class IdempotencyServletAutoConfiguration {
  /** Instantiated by Spring Boot's auto-configuration. */
  public IdempotencyServletAutoConfiguration() {}

  private static final System.Logger LOG =
      System.getLogger(IdempotencyServletAutoConfiguration.class.getName());

  /**
   * Said at start-up when the application's Spring JDBC writes cannot join the request's
   * transaction.
   */
  static final String NOT_JOINED =
      "idempotency: requests of endpoints in one transaction (the default on the JDBC store) run"
          + " on the store's connection, but idempotency-spring is not on the class path, so"
          + " JdbcTemplate, @Transactional and JPA writes do not join that transaction: they commit"
          + " on connections of their own, which a crash between them and the response leaves"
          + " committed under a key that runs again after its lease. Add idempotency-spring"
          + " (idempotency-spring-boot-starter brings it), write on the request attribute"
          + " IdempotencyFilter.TRANSACTION_ATTRIBUTE, or choose"
          + " idempotency.endpoints[i].in-one-transaction=false with recovery points.";

  /** The bean name of the filter's registration. */
  public static final String REGISTRATION = "idempotencyFilterRegistration";

  /** The filter's registration; one of the application's under the same name wins. */
  @Bean(REGISTRATION)
  @ConditionalOnMissingBean(name = REGISTRATION)
  FilterRegistrationBean<Filter> idempotencyFilterRegistration(
      IdempotencyHttp http,
      IdempotencyProperties properties,
      ObjectProvider<EngineExtension> extensions,
      ObjectProvider<DataSource> dataSources,
      ListableBeanFactory beans) {
    List<EngineExtension> timers = extensions.orderedStream().toList();
    Filter filter = new IdempotencyFilter(http);
    DataSource dataSource = dataSources.getIfUnique();
    boolean ownStore = beans.containsBean(IdempotencyJdbcAutoConfiguration.STORE);
    if (dataSource != null
        && ownStore
        && present(beans, "org.springframework.jdbc.datasource.ConnectionHolder")) {
      if (present(beans, "dev.idempotency.spring.internal.StoreConnectionBinding")) {
        Object entityManagerFactory =
            JoinedEntityManagerFactory.present()
                ? JoinedEntityManagerFactory.find(beans, dataSource)
                : null;
        filter = new SpringTransactionFilter(filter, dataSource, entityManagerFactory);
      } else {
        LOG.log(System.Logger.Level.WARNING, NOT_JOINED);
      }
    }
    FilterRegistrationBean<Filter> registration =
        new FilterRegistrationBean<>(timers.isEmpty() ? filter : new TimedFilter(filter, timers));
    registration.setName("idempotencyFilter");
    registration.setDispatcherTypes(DispatcherType.REQUEST);
    registration.setOrder(properties.getFilter().getOrder());
    registration.setUrlPatterns(properties.getFilter().getUrlPatterns());
    return registration;
  }

  /**
   * Whether {@code className} can be loaded by the context's class loader. The binding joins Spring
   * transactions only for the store {@link IdempotencyJdbcAutoConfiguration} built over the unique
   * {@code DataSource} (a store of the application's may use another database), with Spring JDBC
   * and idempotency-spring's binding present.
   */
  private static boolean present(ListableBeanFactory beans, String className) {
    ClassLoader own = IdempotencyServletAutoConfiguration.class.getClassLoader();
    ClassLoader context =
        beans instanceof ConfigurableBeanFactory configurable
                && configurable.getBeanClassLoader() != null
            ? configurable.getBeanClassLoader()
            : own;
    // the filter links the binding through this module's loader; the application sees the
    // context's: both must have it
    return ClassUtils.isPresent(className, own) && ClassUtils.isPresent(className, context);
  }

  /** Fails start-up when the filter would run before Spring Security's. */
  @Bean
  static FilterOrderCheck idempotencyFilterOrderCheck(ListableBeanFactory beans) {
    return new FilterOrderCheck(beans, REGISTRATION);
  }
}
