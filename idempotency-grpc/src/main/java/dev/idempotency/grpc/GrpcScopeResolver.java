package dev.idempotency.grpc;

import dev.idempotency.Scope;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import java.util.Objects;
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
   * .withValue(key, principal), …)}.
   *
   * @param key the context key of the caller's identity
   * @return the resolver; it resolves no scope when the value is absent or not a valid scope
   */
  static GrpcScopeResolver fromContext(Context.Key<?> key) {
    Objects.requireNonNull(key, "key");
    return (call, headers) -> {
      Object principal = key.get();
      if (principal == null) {
        return null;
      }
      try {
        return Scope.of(principal.toString());
      } catch (IllegalArgumentException e) {
        return null; // empty, too long or with control characters: no usable identity
      }
    };
  }
}
