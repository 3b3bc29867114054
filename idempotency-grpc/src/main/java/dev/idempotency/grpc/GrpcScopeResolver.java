package dev.idempotency.grpc;

import dev.idempotency.Scope;
import dev.idempotency.grpc.internal.PrincipalScopes;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The caller's scope for a guarded call, from the identity the application's authentication
 * interceptor put in the gRPC {@link Context}; never from a value the client sets freely. It runs
 * in the call's context, after the interceptors that run before the idempotency interceptor.
 */
@FunctionalInterface
public interface GrpcScopeResolver {
  /**
   * The scope of the call.
   *
   * @param call the call
   * @param headers its metadata (the authentication interceptor has checked it)
   * @return the scope, or null when there is no authenticated caller ({@code UNAUTHENTICATED
   *     IDEMPOTENCY_SCOPE_UNRESOLVED})
   */
  @Nullable Scope resolve(ServerCall<?, ?> call, Metadata headers);

  /**
   * The scope named by the value of {@code key} in the call's context ({@code toString()}), as an
   * authentication interceptor sets it with {@code Contexts.interceptCall(Context.current()
   * .withValue(key, principal), …)}. Fit for a value whose {@code toString()} is the caller's
   * stable identifier (a {@code String}, an account id type). A value whose class keeps {@code
   * Object.toString()} (a class name and a hash code, another for every object) is refused: no
   * scope, and an ERROR once per class; a record's {@code toString()} includes every field, a
   * token's expiry too, so that the scope would change at each token refresh: use {@link
   * #fromContext(Context.Key, Function)} for those.
   *
   * @param key the context key of the caller's identity
   * @return the resolver; it resolves no scope when the value is absent or not a valid scope
   */
  static GrpcScopeResolver fromContext(Context.Key<?> key) {
    Objects.requireNonNull(key, "key");
    return (call, headers) -> {
      Object principal = key.get();
      return principal == null ? null : PrincipalScopes.named(principal);
    };
  }

  /**
   * The scope {@code id} names from the value of {@code key} in the call's context: the caller's
   * stable identifier (an account or tenant id), never anything that changes between a call and its
   * retry (a token, its expiry, a session).
   *
   * @param key the context key of the caller's identity
   * @param id the identifier of an identity
   * @param <T> the identity's type
   * @return the resolver; it resolves no scope when the value is absent or its identifier is not a
   *     valid scope (empty, too long, with control characters)
   */
  static <T> GrpcScopeResolver fromContext(Context.Key<T> key, Function<? super T, String> id) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(id, "id");
    return (call, headers) -> {
      T principal = key.get();
      return principal == null ? null : PrincipalScopes.scope(id.apply(principal));
    };
  }
}
