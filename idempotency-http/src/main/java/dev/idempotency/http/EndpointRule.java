package dev.idempotency.http;

import dev.idempotency.http.internal.PathPattern;
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
 * <p>{@link #inOneTransaction()} makes a rule run its requests in one transaction of the store: the
 * claim, the application's statements and the completion commit together, once. Immutable and
 * thread-safe.
 */
public final class EndpointRule {
  private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

  private final Set<String> methods;
  private final PathPattern path;
  private final KeyRequirement requirement;
  private final boolean oneTransaction;

  private EndpointRule(
      Set<String> methods, PathPattern path, KeyRequirement requirement, boolean oneTransaction) {
    this.methods = methods;
    this.path = path;
    this.requirement = requirement;
    this.oneTransaction = oneTransaction;
  }

  /**
   * Creates a rule.
   *
   * @param requirement whether the key is required or optional
   * @param pathPattern the path pattern, starting with {@code /}
   * @param methods the methods, at least one, none of them safe
   * @throws IllegalArgumentException naming the setting when a method is safe or not an HTTP token,
   *     or the pattern is malformed
   */
  public static EndpointRule of(KeyRequirement requirement, String pathPattern, String... methods) {
    Objects.requireNonNull(requirement, "requirement");
    Objects.requireNonNull(methods, "methods");
    if (methods.length == 0) {
      throw new IllegalArgumentException("endpoint methods must name at least one method");
    }
    for (String m : methods) {
      Objects.requireNonNull(m, "method");
      if (!IdempotencyHttpBuilder.isToken(m)) {
        throw new IllegalArgumentException(
            "endpoint method must be an HTTP token, but was \"" + m + "\"");
      }
      if (SAFE.contains(m.toUpperCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "endpoint method "
                + m
                + " is safe: it must have no side effects, so an"
                + " idempotency key would guard nothing; keys apply to POST, PATCH, PUT, DELETE and the like");
      }
    }
    return new EndpointRule(Set.of(methods), PathPattern.of(pathPattern), requirement, false);
  }

  /**
   * This rule, running its requests in one transaction of the engine's store ({@link
   * dev.idempotency.core.IdempotencyEngine#executeInOneTransaction}): the claim, the application's
   * statements and the completion with its stored response commit together, with one commit, and
   * the response reaches the client only after it. The application finds the open transaction (for
   * the JDBC store a {@code java.sql.Connection}) where its adapter puts it (the servlet filter:
   * the request attribute {@code IdempotencyFilter.TRANSACTION_ATTRIBUTE}); it runs its statements
   * on it and neither commits nor rolls back. A handler that throws rolls everything back, the
   * claim included, so a retry runs as a first attempt; so does a crash before the commit.
   *
   * <p>For requests whose whole work is statements on the store's database, and short ones: every
   * duplicate of a key holds a connection while it waits on the first one's lock, and a handler
   * that calls anything else (a payment provider, a queue) cannot roll that call back, and may run
   * again after a serialization failure or deadlock. Such requests need the default lifecycle and
   * its recovery points. {@link IdempotencyHttpBuilder#endpoint} refuses a rule in one transaction
   * unless the engine's store declares {@code StoreCapability.ONE_TRANSACTION}.
   *
   * @return a rule with the same methods, path and requirement, in one transaction
   */
  public EndpointRule inOneTransaction() {
    return new EndpointRule(methods, path, requirement, true);
  }

  /** Whether the rule covers this method and path. */
  public boolean matches(String method, String path) {
    return methods.contains(method) && this.path.matches(path);
  }

  /** The methods covered. */
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

  /** Whether the rule runs its requests in one transaction ({@link #inOneTransaction()}). */
  public boolean runsInOneTransaction() {
    return oneTransaction;
  }

  @Override
  public String toString() {
    return requirement + " " + methods + " " + path + (oneTransaction ? " in one transaction" : "");
  }
}
