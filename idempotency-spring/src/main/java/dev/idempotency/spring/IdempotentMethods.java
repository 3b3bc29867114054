package dev.idempotency.spring;

import dev.idempotency.Execution;
import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.spring.internal.CurrentExecution;
import dev.idempotency.spring.internal.IdempotentMethodInterceptor;
import dev.idempotency.spring.internal.MethodPlans;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Spring AOP advisor that applies {@link Idempotent} to the methods of the context's beans,
 * through an {@link IdempotencyEngine}. Declare it as a bean; the context's auto-proxy creator
 * (Spring Boot's, or {@code @EnableTransactionManagement}'s when the bean has the infrastructure
 * role, or a {@code DefaultAdvisorAutoProxyCreator}) wraps every bean with an annotated method:
 *
 * <pre>{@code
 * @Bean
 * @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
 * static IdempotentMethods idempotentMethods(IdempotencyEngine engine, JsonMapper json) {
 *   return IdempotentMethods.builder(engine).jsonMapper(json).build();
 * }
 * }</pre>
 *
 * <p>Its order is {@link #DEFAULT_ORDER}, ahead of Spring's transaction advisor (whose default
 * order is the lowest precedence): a {@code @Transactional} on the same method runs inside the
 * guard, so the method's transaction has committed when its result is stored. A method called
 * inside a caller's Spring transaction is refused unless {@link
 * Builder#allowSurroundingTransactions} says otherwise: its key would complete before that
 * transaction commits. Each annotated method is checked as the advisor first matches it (when its
 * bean is created): an expression that does not parse or names no parameter, an asynchronous return
 * type, or {@code transactional} without a transactional store fails the context's start-up.
 *
 * <p>Thread-safe; one per engine.
 */
public final class IdempotentMethods implements PointcutAdvisor, Ordered {
  /** Ahead of Spring's transaction advisor, whose default is {@link Ordered#LOWEST_PRECEDENCE}. */
  public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

  /** The scope of a method whose annotation names none. */
  public static final String DEFAULT_SCOPE = "methods";

  private final Pointcut pointcut;
  private final Advice advice;
  private final int order;
  private final String description;

  private IdempotentMethods(Builder b) {
    MethodPlans plans =
        new MethodPlans(
            b.engine, b.jsonMapper, b.defaultScope, b.dataSource, b.entityManagerFactory);
    this.pointcut = new GuardedMethods(plans);
    this.advice = new IdempotentMethodInterceptor(plans, b.allowSurroundingTransactions);
    this.order = b.order;
    this.description =
        "IdempotentMethods[defaultScope=" + b.defaultScope + ", order=" + b.order + "]";
  }

  /**
   * A builder for an advisor running the methods through {@code engine}.
   *
   * @param engine the engine (its store, window, lease and in-flight policy)
   * @return a new builder
   */
  public static Builder builder(IdempotencyEngine engine) {
    Objects.requireNonNull(engine, "engine");
    return new Builder(() -> engine);
  }

  /**
   * A builder for an advisor running the methods through the engine {@code engine} supplies, asked
   * for once, when the first {@code @Idempotent} method is found: for a container that builds its
   * advisors before other beans (Spring's auto-proxy creator does), where building the engine then
   * would build its store and DataSource before every post-processor is in place.
   *
   * @param engine supplies the engine
   * @return a new builder
   */
  public static Builder builder(Supplier<IdempotencyEngine> engine) {
    return new Builder(Objects.requireNonNull(engine, "engine"));
  }

  /**
   * The claim of the {@code @Idempotent} method whose body runs on the calling thread (the
   * innermost one, when guarded methods call each other). A method that may run long checks {@link
   * Execution#leaseLost()} before each side effect outside the store (a payment, a message) and
   * stops, by throwing, when it is {@code true}: it ran past the engine's {@code maxOperationTime},
   * or its lease could not be renewed, and once the lease ends a redelivery takes the key over and
   * runs the method again. It also gives {@link Execution#downstreamKey(String)}, the same for
   * every run of one request, to pass to the systems the method calls.
   *
   * <p>Bound to the thread that called the method, for as long as its body runs: work the body
   * hands to other threads takes the {@code Execution} along as an argument.
   *
   * @return the claim the method runs under
   * @throws IllegalStateException if no guarded method's body runs on this thread, or the innermost
   *     one is {@code transactional} (its writes commit only with its result, under the claim, so
   *     it has no lease to lose)
   */
  public static Execution currentExecution() {
    return CurrentExecution.get();
  }

  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }

  @Override
  public Advice getAdvice() {
    return advice;
  }

  @Override
  public int getOrder() {
    return order;
  }

  @Override
  public String toString() {
    return description;
  }

  /** Matches the annotated methods; checks each as it first matches it. */
  private static final class GuardedMethods extends StaticMethodMatcherPointcut {
    private final MethodPlans plans;

    GuardedMethods(MethodPlans plans) {
      this.plans = plans;
    }

    @Override
    public boolean matches(Method method, @Nullable Class<?> targetClass) {
      return plans.guards(method, targetClass);
    }
  }

  /** Builds {@link IdempotentMethods}. Not thread-safe. */
  public static final class Builder {
    private final Supplier<IdempotencyEngine> engine;
    private Supplier<JsonMapper> jsonMapper = JsonMapper::shared;
    private String defaultScope = DEFAULT_SCOPE;
    private Supplier<@Nullable DataSource> dataSource = () -> null;
    // not a Supplier<EntityManagerFactory>: its default, a lambda of that type, would load JPA's
    // classes, which an application without JPA does not have
    private Supplier<? extends @Nullable Object> entityManagerFactory = () -> null;
    private boolean allowSurroundingTransactions;
    private int order = DEFAULT_ORDER;

    private Builder(Supplier<IdempotencyEngine> engine) {
      this.engine = engine;
    }

    /**
     * Sets the JSON mapper the results are stored with (and, with sorted map entries and
     * properties, the fingerprints written with): the application's own, so a result's JSON is the
     * one its controllers would write.
     *
     * @param jsonMapper default {@link JsonMapper#shared()}
     * @return this builder
     */
    public Builder jsonMapper(JsonMapper jsonMapper) {
      Objects.requireNonNull(jsonMapper, "jsonMapper");
      this.jsonMapper = () -> jsonMapper;
      return this;
    }

    /**
     * {@link #jsonMapper(JsonMapper)} from a supplier, asked once when the first
     * {@code @Idempotent} method is planned: a container can build the advisor before the mapper
     * and everything the mapper is built from.
     *
     * @param jsonMapper supplies the JSON mapper
     * @return this builder
     */
    public Builder jsonMapper(Supplier<JsonMapper> jsonMapper) {
      this.jsonMapper = Objects.requireNonNull(jsonMapper, "jsonMapper");
      return this;
    }

    /**
     * Sets the scope of the methods whose annotation names none. Methods that share a scope share
     * their keys: the same key on two methods is a mismatch (their fingerprints' purposes differ).
     *
     * @param defaultScope default {@value #DEFAULT_SCOPE}
     * @return this builder
     * @throws IllegalArgumentException if it is no valid scope
     */
    public Builder defaultScope(String defaultScope) {
      this.defaultScope = Scope.of(Objects.requireNonNull(defaultScope, "defaultScope")).value();
      return this;
    }

    /**
     * Sets the DataSource that {@code @Idempotent(transactional = true)} methods bind the store's
     * connection for: the one the {@code JdbcKeyStore} was built on, and the one the methods'
     * {@code JdbcTemplate} uses (the very object: Spring finds a bound connection by it).
     *
     * @param dataSource the DataSource
     * @return this builder
     */
    public Builder transactionalDataSource(DataSource dataSource) {
      Objects.requireNonNull(dataSource, "dataSource");
      this.dataSource = () -> dataSource;
      return this;
    }

    /**
     * {@link #transactionalDataSource(DataSource)} from a supplier, asked once when a transactional
     * method is first planned or run; it may answer null when the application has none.
     *
     * @param dataSource supplies the DataSource, or null
     * @return this builder
     */
    public Builder transactionalDataSource(Supplier<@Nullable DataSource> dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /**
     * Sets the JPA EntityManagerFactory that {@code @Idempotent(transactional = true)} methods join
     * the store's transaction with: a Hibernate one built on the {@link
     * #transactionalDataSource(DataSource) transactional DataSource}. While such a method runs, a
     * Hibernate {@code Session} on the store's {@code Connection} is bound as Spring's {@code
     * EntityManager} for it, so the shared {@code EntityManager} ({@code @PersistenceContext},
     * Spring Data repositories) writes in the store's transaction and a {@code
     * JpaTransactionManager} {@code @Transactional} joins it; the session is flushed before the
     * result is stored. Needs Hibernate and spring-orm.
     *
     * @param entityManagerFactory the EntityManagerFactory (the very object: Spring finds the bound
     *     EntityManager by it)
     * @return this builder
     */
    public Builder transactionalEntityManagerFactory(EntityManagerFactory entityManagerFactory) {
      Objects.requireNonNull(entityManagerFactory, "entityManagerFactory");
      this.entityManagerFactory = () -> entityManagerFactory;
      return this;
    }

    /**
     * {@link #transactionalEntityManagerFactory(EntityManagerFactory)} from a supplier, asked once
     * when a transactional method first runs; it may answer null when the application has none.
     *
     * @param entityManagerFactory supplies the EntityManagerFactory, or null
     * @return this builder
     */
    public Builder transactionalEntityManagerFactory(
        Supplier<? extends @Nullable EntityManagerFactory> entityManagerFactory) {
      this.entityManagerFactory =
          Objects.requireNonNull(entityManagerFactory, "entityManagerFactory");
      return this;
    }

    /**
     * Lets a method that is not transactional run inside a caller's Spring transaction. Safe only
     * when the method's writes do not join that transaction (another database, a message sent): its
     * key completes before the transaction commits.
     *
     * @param allow default false: such a call throws {@link IllegalStateException}
     * @return this builder
     */
    public Builder allowSurroundingTransactions(boolean allow) {
      this.allowSurroundingTransactions = allow;
      return this;
    }

    /**
     * Sets the advisor's order among the advisors of a bean.
     *
     * @param order default {@link #DEFAULT_ORDER}
     * @return this builder
     */
    public Builder order(int order) {
      this.order = order;
      return this;
    }

    /**
     * Builds the advisor.
     *
     * @return the advisor
     */
    public IdempotentMethods build() {
      return new IdempotentMethods(this);
    }
  }
}
