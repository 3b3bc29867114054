package dev.idempotency.grpc;

import dev.idempotency.client.OperationKey;
import dev.idempotency.grpc.internal.DeclaredLevels;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The client half for gRPC: one {@code idempotency-key} per logical call, in its metadata. gRPC's
 * own retries, transparent and configured ({@link GrpcRetryServiceConfig}), run below the
 * interceptors and resend the same metadata, so every attempt of the call carries the same key.
 *
 * <pre>{@code
 * ManagedChannel channel = ManagedChannelBuilder.forTarget("payments:8443")
 *     .intercept(IdempotencyClientInterceptor.create())
 *     .defaultServiceConfig(GrpcRetryServiceConfig.forServices(policy, "shop.PaymentService"))
 *     .enableRetry().maxRetryAttempts(policy.maxAttempts())
 *     .build();
 * PaymentServiceBlockingStub payments = PaymentServiceGrpc.newBlockingStub(channel)
 *     .withOption(IdempotencyClientInterceptor.OPERATION_KEY, OperationKey.forEvent("charge", orderId));
 * }</pre>
 *
 * <p><b>The key.</b> The caller's {@code idempotency-key} header if it set one, else the {@link
 * OperationKey} in the call options ({@link #OPERATION_KEY}: derive it from a business id, and an
 * application-level retry of the call reuses it), else one minted when the call starts, for unary
 * methods whose descriptor is neither safe nor idempotent (their proto's {@code
 * idempotency_level}). A minted key lives as long as the call: a retry by the application is a new
 * call and needs the key in its options to be recognised.
 *
 * <p>Thread-safe; one instance serves every call of a channel.
 */
public final class IdempotencyClientInterceptor implements ClientInterceptor {
  /** The call's key, set with {@code stub.withOption(OPERATION_KEY, key)}. */
  public static final CallOptions.Key<@Nullable OperationKey> OPERATION_KEY =
      CallOptions.Key.create("dev.idempotency.OperationKey");

  private final Supplier<OperationKey> keyMinter;

  private IdempotencyClientInterceptor(Supplier<OperationKey> keyMinter) {
    this.keyMinter = keyMinter;
  }

  /**
   * An interceptor that mints random keys.
   *
   * @return the interceptor
   */
  public static IdempotencyClientInterceptor create() {
    return new IdempotencyClientInterceptor(OperationKey::random);
  }

  /**
   * An interceptor that mints keys with {@code keyMinter}, once per call, never per attempt.
   *
   * @param keyMinter the minter
   * @return the interceptor
   */
  public static IdempotencyClientInterceptor withKeyMinter(Supplier<OperationKey> keyMinter) {
    return new IdempotencyClientInterceptor(Objects.requireNonNull(keyMinter, "keyMinter"));
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
    OperationKey given = callOptions.getOption(OPERATION_KEY);
    return new ForwardingClientCall.SimpleForwardingClientCall<>(
        next.newCall(method, callOptions)) {
      @Override
      public void start(Listener<RespT> responseListener, Metadata headers) {
        if (!headers.containsKey(GrpcIdempotencyMetadata.KEY_HEADER)) {
          OperationKey key = given != null ? given : minted(method);
          if (key != null) {
            headers.put(GrpcIdempotencyMetadata.KEY_HEADER, key.value());
          }
        }
        super.start(responseListener, headers);
      }
    };
  }

  private @Nullable OperationKey minted(MethodDescriptor<?, ?> method) {
    if (method.getType() != MethodDescriptor.MethodType.UNARY
        || DeclaredLevels.declared(method) != GrpcKeyRequirement.REQUIRED) {
      return null;
    }
    return Objects.requireNonNull(keyMinter.get(), "the key minter returned null");
  }

  @Override
  public String toString() {
    return "IdempotencyClientInterceptor";
  }
}
