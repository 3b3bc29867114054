package dev.idempotency.grpc;

import dev.idempotency.Execution;
import dev.idempotency.IdempotencyKey;
import dev.idempotency.InvalidIdempotencyKeyException;
import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.grpc.internal.DeclaredLevels;
import dev.idempotency.grpc.internal.GuardSettings;
import dev.idempotency.grpc.internal.GuardedUnaryCall;
import dev.idempotency.grpc.internal.Refusals;
import dev.idempotency.spi.KeyStore;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server half for gRPC: runs each guarded unary call through the {@link IdempotencyEngine}
 * under the key in its {@code idempotency-key} metadata, scoped to the caller, and answers a retry
 * with the stored answer ({@code idempotent-replayed: true} in its trailers).
 *
 * <pre>{@code
 * IdempotencyServerInterceptor idempotency =
 *     IdempotencyServerInterceptor.builder(engine, GrpcScopeResolver.fromContext(AuthInterceptor.CALLER))
 *         .build();
 * Server server = NettyServerBuilder.forPort(8443)
 *     .addService(ServerInterceptors.intercept(new PaymentService(), idempotency, authInterceptor))
 *     .build();                    // the last interceptor runs first: authentication, then idempotency
 * }</pre>
 *
 * <p><b>Which calls.</b> Unary methods only; streaming methods pass through untouched. A method
 * needs a key as configured ({@link Builder#method}, {@link Builder#service}), else as its proto
 * says: {@code option idempotency_level = NO_SIDE_EFFECTS} never ({@link GrpcKeyRequirement#NONE}),
 * {@code IDEMPOTENT} optionally ({@link GrpcKeyRequirement#OPTIONAL}), anything else always ({@link
 * GrpcKeyRequirement#REQUIRED}).
 *
 * <p><b>The fingerprint</b> is the SHA-256 of the purpose {@code grpc-unary/1}, the full method
 * name and the request message as the method's marshaller serializes it. A protobuf message
 * serializes its known fields in field-number order, so two encodings of one request that differ
 * only in field order are one request; map entries keep the order they arrived in.
 *
 * <p><b>What is stored:</b> the handler's message as bytes, its status, the status details ({@code
 * grpc-status-details-bin}) and the metadata keys in {@link Builder#storedMetadata}; a replay
 * parses the bytes through the method's marshaller, so its message is byte-identical on the wire.
 * An answer whose code is not in {@link Builder#storedCodes} (by default CANCELLED,
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED and UNAVAILABLE: "not done, try again") releases
 * the key, and the retry runs the handler anew.
 *
 * <p><b>Threads.</b> The binding blocks: on the key store, on the engine's bounded wait and on the
 * handler's answer (an asynchronous handler may answer on any thread). It runs on the call's
 * executor, so the server must have one that may block: a server built with {@code
 * directExecutor()} runs calls on its transport threads, and the binding refuses such calls ({@code
 * INTERNAL IDEMPOTENCY_BLOCKING_EXECUTOR_REQUIRED}) where it can tell (Netty's event loops; any
 * Netty {@code FastThreadLocalThread} counts as one, so an executor on Netty's {@code
 * DefaultThreadFactory} is refused too). The engine's in-flight wait ends when the call's context
 * is cancelled: at the deadline at once (gRPC's timer thread cancels it), but a client's
 * cancellation runs on the call's executor, so on a small fixed pool whose threads all wait it
 * queues behind them and each wait runs to its {@code maxWait}: prefer an executor that is not a
 * small fixed pool (cached, or virtual threads). The wait ends through the engine's {@link
 * dev.idempotency.core.WaitCancellation}, never by an interrupt, so a store call under way finishes
 * undisturbed and no further claim is made. The handler finds the call's {@link Execution}
 * (checkpoints, downstream keys) under {@link #EXECUTION} in its context.
 *
 * <p>Thread-safe; one instance serves every call of a server.
 */
public final class IdempotencyServerInterceptor implements ServerInterceptor {
  /** The guarded call's {@link Execution}, in the handler's context while it runs. */
  public static final Context.Key<Execution> EXECUTION = Context.key("dev.idempotency.Execution");

  /** The codes whose answers are not stored by default. */
  public static final Set<Status.Code> DEFAULT_UNSTORED_CODES =
      Set.copyOf(
          EnumSet.of(
              Status.Code.CANCELLED,
              Status.Code.DEADLINE_EXCEEDED,
              Status.Code.RESOURCE_EXHAUSTED,
              Status.Code.ABORTED,
              Status.Code.UNAVAILABLE));

  private final GuardSettings settings;
  private final GrpcScopeResolver scopeResolver;
  private final Map<String, GrpcKeyRequirement> methods;
  private final Map<String, GrpcKeyRequirement> services;
  private final Map<String, GrpcKeyRequirement> resolved = new ConcurrentHashMap<>();

  private IdempotencyServerInterceptor(Builder b) {
    this.settings =
        new GuardSettings(
            b.engine,
            Set.copyOf(b.storedMetadata),
            Set.copyOf(b.storedCodes),
            b.maxStoredResponseBytes,
            b.storeUnavailableRetryAfter,
            EXECUTION);
    this.scopeResolver = b.scopeResolver;
    this.methods = Map.copyOf(b.methods);
    this.services = Map.copyOf(b.services);
  }

  /**
   * A builder with the defaults.
   *
   * @param engine the engine every guarded call runs through
   * @param scopeResolver the caller's scope, from the call's context
   * @return a new builder
   */
  public static Builder builder(IdempotencyEngine engine, GrpcScopeResolver scopeResolver) {
    return new Builder(engine, scopeResolver);
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    MethodDescriptor<ReqT, RespT> method = call.getMethodDescriptor();
    if (method.getType() != MethodDescriptor.MethodType.UNARY) {
      return next.startCall(call, headers);
    }
    GrpcKeyRequirement requirement = requirementOf(method);
    if (requirement == GrpcKeyRequirement.NONE) {
      return next.startCall(call, headers);
    }
    Iterable<String> values = headers.getAll(GrpcIdempotencyMetadata.KEY_HEADER);
    List<String> keys = new ArrayList<>();
    if (values != null) {
      values.forEach(keys::add);
    }
    if (keys.isEmpty()) {
      if (requirement == GrpcKeyRequirement.OPTIONAL) {
        return next.startCall(call, headers);
      }
      return refused(
          call,
          IdempotencyErrorReason.IDEMPOTENCY_KEY_MISSING,
          method.getFullMethodName() + " requires an idempotency-key",
          Map.of());
    }
    if (keys.size() > 1) {
      return refused(
          call,
          IdempotencyErrorReason.IDEMPOTENCY_KEY_INVALID,
          "idempotency-key must be sent once, but was sent " + keys.size() + " times",
          Map.of("rule", "multiple_values"));
    }
    IdempotencyKey key;
    try {
      key = IdempotencyKey.parseHeader(keys.get(0));
    } catch (InvalidIdempotencyKeyException e) {
      return refused(
          call,
          IdempotencyErrorReason.IDEMPOTENCY_KEY_INVALID,
          String.valueOf(e.getMessage()),
          Map.of("rule", e.rule().name().toLowerCase(Locale.ROOT)));
    }
    Scope scope = scopeResolver.resolve(call, headers);
    if (scope == null) {
      return refused(
          call,
          IdempotencyErrorReason.IDEMPOTENCY_SCOPE_UNRESOLVED,
          "no authenticated caller to scope the idempotency key to",
          Map.of());
    }
    return new GuardedUnaryCall<>(call, headers, next, new RecordId(scope, key), settings);
  }

  /**
   * Whether {@code method} needs a key: configured for the method, else for its service, else by
   * its proto's {@code idempotency_level}.
   *
   * @param method the method
   * @return its requirement
   */
  public GrpcKeyRequirement requirementOf(MethodDescriptor<?, ?> method) {
    GrpcKeyRequirement configured = methods.get(method.getFullMethodName());
    if (configured != null) {
      return configured;
    }
    String service = method.getServiceName();
    configured = service != null ? services.get(service) : null;
    if (configured != null) {
      return configured;
    }
    return resolved.computeIfAbsent(
        method.getFullMethodName(), name -> DeclaredLevels.declared(method));
  }

  private static <ReqT> ServerCall.Listener<ReqT> refused(
      ServerCall<ReqT, ?> call,
      IdempotencyErrorReason reason,
      String message,
      Map<String, String> metadata) {
    Refusals.Refusal refusal = Refusals.of(reason, message, metadata, null);
    call.close(refusal.status(), refusal.trailers());
    return new ServerCall.Listener<>() {};
  }

  @Override
  public String toString() {
    return "IdempotencyServerInterceptor[" + settings.engine().config() + "]";
  }

  /** Builds an {@link IdempotencyServerInterceptor}. Not thread-safe. */
  public static final class Builder {
    private final IdempotencyEngine engine;
    private final GrpcScopeResolver scopeResolver;
    private final Map<String, GrpcKeyRequirement> methods = new LinkedHashMap<>();
    private final Map<String, GrpcKeyRequirement> services = new LinkedHashMap<>();
    private final Set<String> storedMetadata = new TreeSet<>();
    private Set<Status.Code> storedCodes = EnumSet.allOf(Status.Code.class);
    private int maxStoredResponseBytes = 1024 * 1024;
    private boolean maxStoredResponseBytesSet;
    private Duration storeUnavailableRetryAfter = Duration.ofSeconds(5);

    private Builder(IdempotencyEngine engine, GrpcScopeResolver scopeResolver) {
      this.engine = Objects.requireNonNull(engine, "engine");
      this.scopeResolver = Objects.requireNonNull(scopeResolver, "scopeResolver");
      storedCodes.removeAll(DEFAULT_UNSTORED_CODES);
    }

    /**
     * Sets whether one method needs a key, over its service's setting and its proto's level.
     *
     * @param fullMethodName {@code package.Service/Method}
     * @param requirement the requirement
     * @return this builder
     */
    public Builder method(String fullMethodName, GrpcKeyRequirement requirement) {
      Objects.requireNonNull(fullMethodName, "fullMethodName");
      if (MethodDescriptor.extractFullServiceName(fullMethodName) == null) {
        throw new IllegalArgumentException(
            "method must be a full method name, package.Service/Method, but was " + fullMethodName);
      }
      methods.put(fullMethodName, Objects.requireNonNull(requirement, "requirement"));
      return this;
    }

    /**
     * Sets whether the unary methods of one service need a key, over their protos' levels.
     *
     * @param fullServiceName {@code package.Service}
     * @param requirement the requirement
     * @return this builder
     */
    public Builder service(String fullServiceName, GrpcKeyRequirement requirement) {
      Objects.requireNonNull(fullServiceName, "fullServiceName");
      if (fullServiceName.isEmpty() || fullServiceName.contains("/")) {
        throw new IllegalArgumentException(
            "service must be a full service name, package.Service, but was " + fullServiceName);
      }
      services.put(fullServiceName, Objects.requireNonNull(requirement, "requirement"));
      return this;
    }

    /**
     * Adds metadata keys stored with the answer and replayed (headers and trailers alike); the
     * status details are always stored, anything else (tracing, server names) is not.
     *
     * @param keys metadata keys, lower case
     * @return this builder
     */
    public Builder storedMetadata(String... keys) {
      for (String k : keys) {
        // Metadata.Key validates the name (lower case, legal characters)
        String name =
            k.endsWith(Metadata.BINARY_HEADER_SUFFIX)
                ? Metadata.Key.of(k, Metadata.BINARY_BYTE_MARSHALLER).name()
                : Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER).name();
        if (!name.equals(k)) {
          throw new IllegalArgumentException("storedMetadata keys must be lower case: " + k);
        }
        storedMetadata.add(k);
      }
      return this;
    }

    /**
     * Sets the status codes whose answers are stored and replayed; an answer with another code
     * releases the key, so that the retry runs the handler again. An {@code UNKNOWN} whose cause is
     * no status exception (what grpc-stub's {@code onError(e)} makes of a plain exception, the
     * asynchronous handler's throw) is released whatever this set says, as a thrown exception is.
     *
     * @param codes the stored codes; default every code but {@link #DEFAULT_UNSTORED_CODES}
     * @return this builder
     */
    public Builder storedCodes(Set<Status.Code> codes) {
      Objects.requireNonNull(codes, "codes");
      if (!codes.contains(Status.Code.OK)) {
        throw new IllegalArgumentException("storedCodes must contain OK, but was " + codes);
      }
      this.storedCodes = EnumSet.copyOf(codes);
      return this;
    }

    /**
     * Sets the largest response message stored. A larger one reaches its first caller whole, and a
     * retry gets {@code INTERNAL IDEMPOTENCY_RESPONSE_NOT_STORED}: processed, not replayable. No
     * more than the engine's store keeps ({@link KeyStore#maxResponseBytes()}, which {@link
     * #build()} checks); the store counts the message and the stored status and metadata, so an
     * answer within this limit and over the store's is answered the same way on a retry.
     *
     * @param bytes at least 1 (default 1 MiB, or the store's limit when that is smaller)
     * @return this builder
     */
    public Builder maxStoredResponseBytes(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxStoredResponseBytes must be >= 1, but was " + bytes);
      }
      this.maxStoredResponseBytes = bytes;
      this.maxStoredResponseBytesSet = true;
      return this;
    }

    /**
     * Sets the delay a store outage asks for, in the RetryInfo and the pushback.
     *
     * @param delay at least 1 ms (default 5 s)
     * @return this builder
     */
    public Builder storeUnavailableRetryAfter(Duration delay) {
      Objects.requireNonNull(delay, "delay");
      if (delay.toMillis() < 1) {
        throw new IllegalArgumentException(
            "storeUnavailableRetryAfter must be >= 1 ms, but was " + delay);
      }
      this.storeUnavailableRetryAfter = delay;
      return this;
    }

    /**
     * Builds the interceptor.
     *
     * @return the interceptor
     * @throws IllegalArgumentException if {@link #maxStoredResponseBytes} was set above what the
     *     engine's store keeps ({@link KeyStore#maxResponseBytes()}), or the store keeps less than
     *     the binding's not-stored marker needs; the message names both settings
     */
    public IdempotencyServerInterceptor build() {
      KeyStore store = engine.store();
      long storeLimit = store.maxResponseBytes();
      long markerBytes = Refusals.notStoredMarker(0, Long.MAX_VALUE, Long.MAX_VALUE).size();
      if (storeLimit < markerBytes) {
        throw new IllegalArgumentException(
            "the store "
                + store
                + " keeps responses of at most "
                + storeLimit
                + " bytes (its maxResponseBytes()): less than the "
                + markerBytes
                + " bytes the gRPC binding's not-stored marker needs; configure the store to keep"
                + " larger responses");
      }
      if (maxStoredResponseBytes > storeLimit) {
        if (maxStoredResponseBytesSet) {
          throw new IllegalArgumentException(
              "maxStoredResponseBytes is "
                  + maxStoredResponseBytes
                  + " bytes, but the store "
                  + store
                  + " keeps responses of at most "
                  + storeLimit
                  + " bytes (its maxResponseBytes()): set maxStoredResponseBytes to "
                  + storeLimit
                  + " or less, or raise what the store keeps");
        }
        maxStoredResponseBytes = (int) storeLimit; // the default follows a smaller store
      }
      return new IdempotencyServerInterceptor(this);
    }
  }
}
