package dev.idempotency.http;

import dev.idempotency.http.internal.PathPattern;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Which requests need an idempotency key: a set of methods, a path pattern and a {@link
 * KeyRequirement}. The first rule that matches a request decides; a request no rule matches passes
 * through untouched.
 *
 * <p>Patterns: literal segments, {@code *} for exactly one segment, {@code **} as the last segment
 * for any rest (also none): {@code /payments/**} matches {@code /payments} and {@code
 * /payments/1/refunds}. A path matches by the segments a router sees: empty and dot segments and
 * path parameters do not count, and letters match ignoring case, so {@code /payments/}, {@code
 * //payments} and {@code /PAYMENTS} are all {@code /payments}. Safe methods (GET, HEAD, OPTIONS,
 * TRACE) are refused: they must not have side effects, so a key would guard nothing.
 *
 * <p>Methods are upper-cased when the rule is built: {@code "post"}, as a hand-written property may
 * say it, is POST (every method RFC 9110 registers is upper case), and a request's method matches
 * them ignoring case, so that {@code post} on the wire cannot pass unguarded through a server that
 * routes methods ignoring case.
 *
 * <p>How a rule runs its requests: {@link #inOneTransaction()} in one transaction of the store (the
 * claim, the application's statements and the completion commit together, once), {@link #stepped()}
 * with a claim and a completion of their own and the recovery points between them (for work that
 * calls anything outside the store's database). A rule that chose neither runs in one transaction
 * when the engine's store declares {@code StoreCapability.ONE_TRANSACTION} (the JDBC store) and the
 * adapter can hand the application the transaction (the servlet filter can), and stepped otherwise:
 * the safe choice for the common request, whose writes all go to the store's database, while work
 * that calls a payment provider or a queue says {@code stepped()} by name. Immutable and
 * thread-safe.
 */
public final class EndpointRule {
  private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

  private final Set<String> methods;
  private final PathPattern path;
  private final KeyRequirement requirement;
  private final Lifecycle lifecycle;

  /** How the rule's requests run: chosen by name, or left to the store and the adapter. */
  private enum Lifecycle {
    UNCHOSEN,
    ONE_TRANSACTION,
    /** One transaction because the store can, on a rule that chose nothing. */
    ONE_TRANSACTION_BY_DEFAULT,
    STEPPED
  }

  private EndpointRule(
      Set<String> methods, PathPattern path, KeyRequirement requirement, Lifecycle lifecycle) {
    this.methods = methods;
    this.path = path;
    this.requirement = requirement;
    this.lifecycle = lifecycle;
  }

  /**
   * Creates a rule.
   *
   * @param requirement whether the key is required or optional
   * @param pathPattern the path pattern, starting with {@code /}
   * @param methods the methods, at least one, none of them safe; upper-cased
   * @throws IllegalArgumentException naming the setting when a method is safe or not an HTTP token,
   *     or the pattern is malformed
   */
  public static EndpointRule of(KeyRequirement requirement, String pathPattern, String... methods) {
    Objects.requireNonNull(requirement, "requirement");
    Objects.requireNonNull(methods, "methods");
    if (methods.length == 0) {
      throw new IllegalArgumentException("endpoint methods must name at least one method");
    }
    Set<String> upperCase = new LinkedHashSet<>();
    for (String m : methods) {
      Objects.requireNonNull(m, "method");
      if (!IdempotencyHttpBuilder.isToken(m)) {
        throw new IllegalArgumentException(
            "endpoint method must be an HTTP token, but was \"" + m + "\"");
      }
      String method = m.toUpperCase(Locale.ROOT);
      upperCase.add(method);
      if (SAFE.contains(method)) {
        throw new IllegalArgumentException(
            "endpoint method "
                + m
                + " is safe: it must have no side effects, so an"
                + " idempotency key would guard nothing; keys apply to POST, PATCH, PUT, DELETE and the like");
      }
    }
    return new EndpointRule(
        Set.copyOf(upperCase), PathPattern.of(pathPattern), requirement, Lifecycle.UNCHOSEN);
  }

  /**
   * This rule, running its requests in one transaction of the engine's store ({@link
   * dev.idempotency.core.Work#inOneTransaction}): the claim, the application's statements and the
   * completion with its stored response commit together, with one commit, and the response reaches
   * the client only after it. The application finds the open transaction (for the JDBC store a
   * {@code java.sql.Connection}) where its adapter puts it (the servlet filter: the request
   * attribute {@code IdempotencyFilter.TRANSACTION_ATTRIBUTE}); it runs its statements on it and
   * neither commits nor rolls back. A handler that throws rolls everything back, the claim
   * included, so a retry runs as a first attempt; so does a crash before the commit.
   *
   * <p>For requests whose whole work is statements on the store's database, and short ones: every
   * duplicate of a key holds a connection while it waits on the first one's lock, and a handler
   * that calls anything else (a payment provider, a queue) cannot roll that call back, and may run
   * again after a serialization failure or deadlock. Such requests need {@link #stepped()} and its
   * recovery points. {@link IdempotencyHttpBuilder#endpoint} refuses a rule in one transaction
   * unless the engine's store declares {@code StoreCapability.ONE_TRANSACTION}.
   *
   * @return a rule with the same methods, path and requirement, in one transaction
   */
  public EndpointRule inOneTransaction() {
    return new EndpointRule(methods, path, requirement, Lifecycle.ONE_TRANSACTION);
  }

  /**
   * This rule, running its requests with a claim and a completion of their own, whatever the store:
   * the application runs between the two commits, renewing the claim's lease, and finds the
   * request's {@link dev.idempotency.Execution} where its adapter puts it (the servlet filter: the
   * request attribute {@code IdempotencyFilter.EXECUTION_ATTRIBUTE}) for its recovery points and
   * the downstream keys of its calls out ({@code downstreamKey(purpose)}), which are the same on
   * every retry. For work that calls anything outside the store's database: a payment provider, a
   * queue, another service. A process killed after the application's own commit and before the
   * completion leaves the key in flight; a retry after the lease resumes from the last recovery
   * point, or runs the application again when it set none.
   *
   * @return a rule with the same methods, path and requirement, stepped
   */
  public EndpointRule stepped() {
    return new EndpointRule(methods, path, requirement, Lifecycle.STEPPED);
  }

  /**
   * This rule with its lifecycle decided: as it chose, or, when it chose none, in one transaction
   * if {@code storeRunsOneTransaction}, else stepped.
   */
  EndpointRule decided(boolean storeRunsOneTransaction) {
    if (lifecycle != Lifecycle.UNCHOSEN) {
      return this;
    }
    return new EndpointRule(
        methods,
        path,
        requirement,
        storeRunsOneTransaction ? Lifecycle.ONE_TRANSACTION_BY_DEFAULT : Lifecycle.STEPPED);
  }

  /**
   * Whether the rule runs in one transaction only because it chose no lifecycle and the store can:
   * an adapter that cannot hand the application a transaction then runs it stepped.
   */
  boolean inOneTransactionByDefault() {
    return lifecycle == Lifecycle.ONE_TRANSACTION_BY_DEFAULT;
  }

  /** Whether the rule covers this method (in any case) and path. */
  public boolean matches(String method, String path) {
    return methods.contains(method.toUpperCase(Locale.ROOT)) && this.path.matches(path);
  }

  /** The methods covered, upper case. */
  public Set<String> methods() {
    return methods;
  }

  /** The path pattern. */
  public String pathPattern() {
    return path.toString();
  }

  /** Whether the key is required or optional. */
  public KeyRequirement requirement() {
    return requirement;
  }

  /**
   * Whether the rule runs its requests in one transaction: as a handler holds it ({@link
   * IdempotencyHttp#endpoints()}), with its lifecycle decided; on a rule that chose none, false.
   */
  public boolean runsInOneTransaction() {
    return lifecycle == Lifecycle.ONE_TRANSACTION
        || lifecycle == Lifecycle.ONE_TRANSACTION_BY_DEFAULT;
  }

  @Override
  public String toString() {
    return requirement
        + " "
        + methods
        + " "
        + path
        + switch (lifecycle) {
          case UNCHOSEN -> "";
          case ONE_TRANSACTION, ONE_TRANSACTION_BY_DEFAULT -> " in one transaction";
          case STEPPED -> " stepped";
        };
  }
}
