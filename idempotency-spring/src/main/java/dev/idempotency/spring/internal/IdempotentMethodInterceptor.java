package dev.idempotency.spring.internal;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotentWorkFailedException;
import dev.idempotency.core.Work;
import java.lang.reflect.UndeclaredThrowableException;
import java.sql.Connection;
import java.util.Objects;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;

/**
 * Runs an {@code @Idempotent} method through its {@link MethodPlan}'s {@code IdempotentCall}, and
 * answers as the method would: its result (run now or replayed), or the exception it threw, checked
 * ones included.
 */
public final class IdempotentMethodInterceptor implements MethodInterceptor {
  private static final ParameterNameDiscoverer PARAMETER_NAMES =
      new DefaultParameterNameDiscoverer();

  private final MethodPlans plans;
  private final boolean allowSurroundingTransactions;

  /**
   * An interceptor of the methods {@code plans} guards.
   *
   * @param plans the methods' plans
   * @param allowSurroundingTransactions whether a method that is not transactional may run inside a
   *     Spring transaction
   */
  public IdempotentMethodInterceptor(MethodPlans plans, boolean allowSurroundingTransactions) {
    this.plans = plans;
    this.allowSurroundingTransactions = allowSurroundingTransactions;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    MethodPlan plan =
        plans.find(invocation.getMethod(), target == null ? null : AopUtils.getTargetClass(target));
    if (plan == null) {
      return invocation.proceed();
    }
    @Nullable Object[] arguments = invocation.getArguments();
    EvaluationContext context =
        new MethodBasedEvaluationContext(target, plan.method, arguments, PARAMETER_NAMES);
    RecordId id = plan.recordId(context);
    Fingerprint fingerprint = plan.fingerprint(context, arguments);
    Object dataSource = plans.transactionalDataSource();
    SurroundingTransactions.check(plan, dataSource, allowSurroundingTransactions);
    try {
      Object result;
      if (plan.transactional) {
        Object bindFor = Objects.requireNonNull(dataSource, "checked when the plan was made");
        Object entityManagerFactory = plans.transactionalEntityManagerFactory();
        result =
            plan.call.run(
                id,
                fingerprint,
                Work.inOneTransaction(
                    Connection.class,
                    tx ->
                        StoreConnectionBinding.run(
                            bindFor,
                            entityManagerFactory,
                            tx,
                            () -> CurrentExecution.inOneTransaction(() -> proceed(invocation)))));
      } else {
        result =
            plan.call.run(
                id,
                fingerprint,
                Work.stepped(
                    execution -> CurrentExecution.with(execution, () -> proceed(invocation))));
      }
      return JsonResultCodec.unwrap(result);
    } catch (IdempotentWorkFailedException e) {
      // the method threw a checked exception: the caller gets it as the method declared it
      Throwable cause = e.getCause();
      throw cause != null ? cause : e;
    }
  }

  /**
   * Runs the rest of the chain and the method. A transactional store may run the work again after a
   * retryable abort (a deadlock, a serialization failure), and an invocation proceeds once, so each
   * run proceeds on a clone.
   */
  private static Object proceed(MethodInvocation invocation) throws Exception {
    MethodInvocation run =
        invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
    try {
      return JsonResultCodec.wrap(run.proceed());
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new UndeclaredThrowableException(t);
    }
  }
}
