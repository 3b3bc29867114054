package dev.idempotency.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.Scope;
import io.grpc.Context;
import io.grpc.Metadata;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The scope resolvers over the gRPC Context. */
class GrpcScopeResolverTest {
  /** An identity class that keeps Object's toString: "OpaquePrincipal@1b6d3586", one per object. */
  static final class OpaquePrincipal {}

  /** An identity whose toString carries what changes at each token refresh. */
  record Caller(String accountId, long tokenExpiresAt) {}

  private static final Context.Key<Object> ANY_CALLER = Context.key("test.scope.any");
  private static final Context.Key<Caller> CALLER = Context.key("test.scope.caller");

  @Test
  void aValueWithoutItsOwnToStringIsRefusedWithOneErrorNotTakenAsANewScopePerCall() {
    GrpcScopeResolver resolver = GrpcScopeResolver.fromContext(ANY_CALLER);
    Logger logger = Logger.getLogger("dev.idempotency.grpc.internal.PrincipalScopes");
    List<LogRecord> errors = new CopyOnWriteArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
              errors.add(record);
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.addHandler(handler);
    try {
      assertThat(resolveWith(ANY_CALLER, resolver, new OpaquePrincipal())).isNull();
      assertThat(resolveWith(ANY_CALLER, resolver, new OpaquePrincipal())).isNull();
      assertThat(resolveWith(ANY_CALLER, resolver, "acct-1")).isEqualTo(Scope.of("acct-1"));
    } finally {
      logger.removeHandler(handler);
    }
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).getMessage()).contains(OpaquePrincipal.class.getName());
  }

  @Test
  void theIdentifierFormScopesByTheStableIdentifierAcrossTokenRefreshes() {
    GrpcScopeResolver resolver = GrpcScopeResolver.fromContext(CALLER, Caller::accountId);

    Scope first = resolveWith(CALLER, resolver, new Caller("acct-1", 1_000));
    Scope refreshed = resolveWith(CALLER, resolver, new Caller("acct-1", 2_000));

    assertThat(first).isEqualTo(Scope.of("acct-1")).isEqualTo(refreshed);
    assertThat(resolveWith(CALLER, resolver, new Caller("", 1_000))).isNull();
    assertThat(resolver.resolve(null, new Metadata())).isNull(); // no caller in the context
  }

  private static <T> Scope resolveWith(
      Context.Key<T> key, GrpcScopeResolver resolver, T principal) {
    Context withCaller = Context.current().withValue(key, principal);
    Context previous = withCaller.attach();
    try {
      return resolver.resolve(null, new Metadata());
    } finally {
      withCaller.detach(previous);
    }
  }
}
