package dev.idempotency.grpc.internal;

import dev.idempotency.Scope;
import org.jspecify.annotations.Nullable;

/**
 * Scopes from the identity an authentication interceptor put in the gRPC Context. An identity is
 * named by its {@code toString()} only when its class declares one: {@code Object.toString()} is
 * the class name and a hash code, another value for every object, so every retry would be a new
 * request and run again, silently. Such an identity is refused instead (no scope: the call is
 * UNAUTHENTICATED), with one ERROR per class naming it and the fix.
 */
public final class PrincipalScopes {
  private static final System.Logger LOG = System.getLogger(PrincipalScopes.class.getName());

  // computed once per class (two racing first calls may both log; one value is kept)
  private static final ClassValue<Boolean> NAMES_ITSELF =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          boolean declared = declaresToString(type);
          if (!declared) {
            LOG.log(
                System.Logger.Level.ERROR,
                "GrpcScopeResolver.fromContext(key) refuses the caller identity "
                    + type.getName()
                    + ": it keeps Object.toString() (its class name and a hash code, another for"
                    + " every object), so every retry would run as a new request; give it a"
                    + " toString() that names the caller, or use fromContext(key, identity ->"
                    + " id)");
          }
          return declared;
        }
      };

  private PrincipalScopes() {}

  /**
   * The scope {@code principal}'s {@code toString()} names, or null when its class keeps {@code
   * Object.toString()} or the text is no valid scope.
   *
   * @param principal the identity from the Context
   * @return the scope, or null
   */
  public static @Nullable Scope named(Object principal) {
    if (!NAMES_ITSELF.get(principal.getClass())) {
      return null;
    }
    return scope(principal.toString());
  }

  /**
   * The scope of an identifier, or null when it is null or no valid scope (empty, too long, with
   * control characters).
   *
   * @param id the caller's identifier
   * @return the scope, or null
   */
  public static @Nullable Scope scope(@Nullable String id) {
    if (id == null) {
      return null;
    }
    try {
      return Scope.of(id);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static boolean declaresToString(Class<?> type) {
    try {
      return type.getMethod("toString").getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("every class has a public toString()", e);
    }
  }
}
