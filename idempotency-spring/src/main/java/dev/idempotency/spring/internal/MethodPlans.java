package dev.idempotency.spring.internal;

import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotentCall;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spring.Idempotent;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.BaseStream;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link MethodPlan} of every {@code @Idempotent} method, worked out when the advisor's
 * pointcut first matches it, which is as the context creates the bean: a method the advisor cannot
 * guard (an expression that does not parse or names no parameter, an asynchronous return type, a
 * transactional method without a transactional store) fails the context's start-up with a message
 * naming the method, not its first call.
 */
public final class MethodPlans {
  private static final Pattern POSITIONAL = Pattern.compile("[pa]\\d+");

  private final Supplier<IdempotencyEngine> engineSupplier;
  private volatile @Nullable IdempotencyEngine engine;
  private final Supplier<JsonMapper> mapperSupplier;
  private volatile @Nullable Mappers mappers;
  private final String defaultScope;
  private final AskedOnce transactionalDataSource;
  private final AskedOnce transactionalEntityManagerFactory;
  private final SpelExpressionParser parser = new SpelExpressionParser();
  private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
  private final ConcurrentMap<MethodClassKey, Optional<MethodPlan>> plans =
      new ConcurrentHashMap<>();

  /**
   * Plans for the methods of one advisor.
   *
   * @param engine the engine every method runs through, asked for (once) when the first guarded
   *     method is planned, so that a container may build the advisor before the engine
   * @param mapper the results' JSON mapper, asked for (once) when the first guarded method is
   *     planned; the fingerprints use a copy that sorts map entries and properties, so that two
   *     equal arguments always give one fingerprint
   * @param defaultScope the scope of a method whose annotation names none
   * @param transactionalDataSource the {@code javax.sql.DataSource} of {@code transactional}
   *     methods, or null when none is configured; asked for (once) when first needed
   * @param transactionalEntityManagerFactory the {@code jakarta.persistence.EntityManagerFactory}
   *     of {@code transactional} methods, or null when none is configured; asked for (once) when a
   *     transactional method first runs
   */
  public MethodPlans(
      Supplier<IdempotencyEngine> engine,
      Supplier<JsonMapper> mapper,
      String defaultScope,
      Supplier<? extends @Nullable Object> transactionalDataSource,
      Supplier<? extends @Nullable Object> transactionalEntityManagerFactory) {
    this.engineSupplier = Objects.requireNonNull(engine, "engine");
    this.mapperSupplier = Objects.requireNonNull(mapper, "mapper");
    this.defaultScope = defaultScope;
    this.transactionalDataSource =
        new AskedOnce(Objects.requireNonNull(transactionalDataSource, "transactionalDataSource"));
    this.transactionalEntityManagerFactory =
        new AskedOnce(
            Objects.requireNonNull(
                transactionalEntityManagerFactory, "transactionalEntityManagerFactory"));
  }

  /** The engine, asked of its supplier the first time. */
  private IdempotencyEngine engine() {
    IdempotencyEngine e = engine;
    if (e == null) {
      synchronized (this) {
        e = engine;
        if (e == null) {
          e = Objects.requireNonNull(engineSupplier.get(), "the engine supplier returned null");
          engine = e;
        }
      }
    }
    return e;
  }

  /** The results' mapper and the fingerprints' sorting copy of it. */
  private record Mappers(JsonMapper result, JsonMapper fingerprint) {}

  /** The mappers, made from the supplier's mapper the first time. */
  private Mappers mappers() {
    Mappers m = mappers;
    if (m == null) {
      synchronized (this) {
        m = mappers;
        if (m == null) {
          JsonMapper mapper =
              Objects.requireNonNull(
                  mapperSupplier.get(), "the JSON mapper supplier returned null");
          m =
              new Mappers(
                  mapper,
                  mapper
                      .rebuild()
                      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                      .build());
          mappers = m;
        }
      }
    }
    return m;
  }

  /** The DataSource {@code transactional} methods bind the store's connection for, or null. */
  @Nullable Object transactionalDataSource() {
    return transactionalDataSource.get();
  }

  /**
   * The EntityManagerFactory {@code transactional} methods bind a session on the store's connection
   * for, or null.
   */
  @Nullable Object transactionalEntityManagerFactory() {
    return transactionalEntityManagerFactory.get();
  }

  /** A value that may be null, asked of its supplier the first time it is needed. */
  private static final class AskedOnce {
    private final Supplier<? extends @Nullable Object> supplier;
    private volatile boolean asked;
    private volatile @Nullable Object value;

    AskedOnce(Supplier<? extends @Nullable Object> supplier) {
      this.supplier = supplier;
    }

    @Nullable Object get() {
      if (!asked) {
        synchronized (this) {
          if (!asked) {
            value = supplier.get();
            asked = true;
          }
        }
      }
      return value;
    }
  }

  /**
   * Whether {@code method}, called on a {@code targetClass}, is an {@code @Idempotent} method.
   *
   * @throws IllegalStateException if it is one the advisor cannot guard (the message says why)
   */
  public boolean guards(Method method, @Nullable Class<?> targetClass) {
    return find(method, targetClass) != null;
  }

  /** The plan of {@code method} on {@code targetClass}, or null when it is not annotated. */
  @Nullable MethodPlan find(Method method, @Nullable Class<?> targetClass) {
    MethodClassKey key = new MethodClassKey(method, targetClass);
    Optional<MethodPlan> known = plans.get(key);
    if (known == null) {
      // planned outside the map's lock: planning may ask for the engine, whose creation makes
      // the container match other beans' methods against this map; two threads planning one
      // method at once make equal plans, and the first stored wins
      Optional<MethodPlan> planned = Optional.ofNullable(plan(method, targetClass));
      known = Objects.requireNonNullElse(plans.putIfAbsent(key, planned), planned);
    }
    return known.orElse(null);
  }

  private @Nullable MethodPlan plan(Method method, @Nullable Class<?> targetClass) {
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    Idempotent annotation = AnnotatedElementUtils.findMergedAnnotation(specific, Idempotent.class);
    if (annotation == null && !specific.equals(method)) {
      annotation = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
    }
    if (annotation == null) {
      return null;
    }
    refuseAsynchronousResult(specific);
    Set<String> variables = variablesOf(specific);
    Expression key = parse(specific, "key", annotation.key(), variables);
    Expression scope =
        annotation.scope().isEmpty()
            ? null
            : parse(specific, "scope", annotation.scope(), variables);
    List<Expression> fingerprint = new ArrayList<>();
    for (String field : annotation.fingerprint()) {
      fingerprint.add(parse(specific, "fingerprint", field, variables));
    }
    if (annotation.transactional()) {
      refuseUntransactional(specific);
    }
    ResultType result;
    try {
      result = ResultType.of(specific, targetClass, mappers().result().getTypeFactory());
    } catch (IllegalArgumentException e) {
      throw refused(specific, String.valueOf(e.getMessage()));
    }
    IdempotentCall<Object> call =
        IdempotentCall.of(engine(), new JsonResultCodec(mappers().result(), result));
    String purpose = annotation.purpose().isEmpty() ? signature(specific) : annotation.purpose();
    if (purpose.isBlank()) {
      throw refused(specific, "its purpose is blank");
    }
    return new MethodPlan(
        specific,
        call,
        annotation.transactional(),
        key,
        scope,
        defaultScope,
        fingerprint,
        purpose,
        mappers().fingerprint());
  }

  /**
   * A method whose result is a promise returns before its work is done: the key would complete with
   * the promise, not with the work's result, and a failure of the work would not release it.
   */
  private static void refuseAsynchronousResult(Method method) {
    Class<?> type = method.getReturnType();
    if (Future.class.isAssignableFrom(type)
        || CompletionStage.class.isAssignableFrom(type)
        || BaseStream.class.isAssignableFrom(type)
        || Iterator.class.isAssignableFrom(type)
        || isReactive(type)) {
      throw refused(
          method,
          "it returns a "
              + type.getName()
              + ", whose work is not done when the method returns; return the result itself");
    }
  }

  /**
   * A Reactive Streams publisher (Reactor, RxJava, Mutiny), found by name: none is a dependency.
   */
  private static boolean isReactive(@Nullable Class<?> type) {
    if (type == null || type == Object.class) {
      return false;
    }
    if (type.getName().equals("org.reactivestreams.Publisher")
        || type.getName().equals("kotlinx.coroutines.flow.Flow")) {
      return true;
    }
    for (Class<?> implemented : type.getInterfaces()) {
      if (isReactive(implemented)) {
        return true;
      }
    }
    return isReactive(type.getSuperclass());
  }

  private void refuseUntransactional(Method method) {
    if (transactionalDataSource() == null) {
      throw refused(
          method,
          "it is transactional, and the advisor has no DataSource to bind the store's connection"
              + " for: set IdempotentMethods.Builder.transactionalDataSource to the DataSource"
              + " of the JdbcKeyStore and of the method's JdbcTemplate");
    }
    if (!engine().store().capabilities().contains(StoreCapability.TRANSACTIONAL)) {
      throw refused(
          method,
          "it is transactional, and the store "
              + engine().store()
              + " runs no business writes in its transactions (JdbcKeyStore does)");
    }
  }

  /** The variables an expression may name: the parameters by name, {@code #p0} and {@code #a0}. */
  private Set<String> variablesOf(Method method) {
    String[] names = parameterNames.getParameterNames(method);
    return names == null ? Set.of() : new HashSet<>(Arrays.asList(names));
  }

  private Expression parse(Method method, String what, String text, Set<String> parameters) {
    if (text.isBlank()) {
      throw refused(method, "its " + what + " expression is blank");
    }
    Expression expression;
    try {
      expression = parser.parseExpression(text);
    } catch (ParseException e) {
      throw refused(method, "its " + what + " expression " + text + " does not parse: " + e);
    }
    if (expression instanceof SpelExpression spel) {
      for (String variable : variables(spel.getAST(), new ArrayList<>())) {
        if (!parameters.contains(variable)
            && !POSITIONAL.matcher(variable).matches()
            && !variable.equals("this")
            && !variable.equals("root")) {
          throw refused(
              method,
              "its "
                  + what
                  + " expression "
                  + text
                  + " names #"
                  + variable
                  + ", which is none of its parameters "
                  + (parameters.isEmpty()
                      ? "(their names are unknown: compile with -parameters, or write #p0, #p1, …)"
                      : parameters.stream().sorted().collect(Collectors.joining(", ", "(", ")"))));
        }
      }
    }
    return expression;
  }

  private static List<String> variables(SpelNode node, List<String> found) {
    if (node instanceof VariableReference) {
      found.add(node.toStringAST().substring(1)); // "#name"
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      variables(node.getChild(i), found);
    }
    return found;
  }

  private static IllegalStateException refused(Method method, String why) {
    return new IllegalStateException(
        "@Idempotent on " + describe(method) + " cannot be applied: " + why);
  }

  /** How messages name a method: {@code com.example.Billing.onOrderPaid(OrderPaid)}. */
  static String describe(Method method) {
    return method.getDeclaringClass().getName()
        + "."
        + method.getName()
        + Arrays.stream(method.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(", ", "(", ")"));
  }

  /** The default purpose: the method's class, name and parameter types, fully qualified. */
  private static String signature(Method method) {
    return method.getDeclaringClass().getName()
        + "#"
        + method.getName()
        + Arrays.stream(method.getParameterTypes())
            .map(Class::getTypeName)
            .collect(Collectors.joining(",", "(", ")"));
  }
}
