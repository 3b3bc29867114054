package dev.idempotency.store.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The connection a phase's work receives: a {@link Proxy} of {@link Connection} that gives every
 * statement the work creates ({@code createStatement}, {@code prepareStatement}, {@code
 * prepareCall}) the store's query timeout, and passes every other call to the pool's connection
 * unchanged.
 *
 * <p>It implements {@code Connection} only, so a driver's own interface (PostgreSQL's {@code
 * PGConnection}, say) is reached through {@link Connection#unwrap}, which the pool's connection
 * answers, never through a cast. It equals only itself and hashes by identity: delegating {@code
 * equals} would make it unequal to itself (the pool's connection does not know the proxy) and
 * unequal to the connection that claims to equal it.
 */
final class TimeoutConnection implements InvocationHandler {
  private final Connection target;
  private final int queryTimeoutSeconds;

  private TimeoutConnection(Connection target, int queryTimeoutSeconds) {
    this.target = target;
    this.queryTimeoutSeconds = queryTimeoutSeconds;
  }

  /** {@code c}, each statement it creates with {@code queryTimeoutSeconds} set. */
  static Connection wrap(Connection c, int queryTimeoutSeconds) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new TimeoutConnection(c, queryTimeoutSeconds));
  }

  @Override
  public @Nullable Object invoke(Object proxy, Method method, @Nullable Object @Nullable [] args)
      throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      switch (method.getName()) {
        case "equals" -> {
          return proxy == Objects.requireNonNull(args, "equals takes one argument")[0];
        }
        case "hashCode" -> {
          return System.identityHashCode(proxy);
        }
        default -> {
          // toString: the pool's connection says which it is
        }
      }
    }
    Object result;
    try {
      result = method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
    if (result instanceof Statement st) { // createStatement, prepareStatement, prepareCall
      st.setQueryTimeout(queryTimeoutSeconds);
    }
    return result;
  }
}
