package dev.idempotency.grpc;

import dev.idempotency.client.Backoff;
import dev.idempotency.client.RetryPolicy;
import dev.idempotency.client.TokenBucketRetryBudget;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Turns {@code idempotency-client}'s {@link RetryPolicy} into gRPC's service config (gRPC A6), for
 * {@code ManagedChannelBuilder.defaultServiceConfig(…)} with {@code enableRetry()}.
 *
 * <table>
 *   <caption>From the policy to the service config</caption>
 *   <tr><th>policy</th><th>service config</th></tr>
 *   <tr><td>{@code maxAttempts}</td><td>{@code retryPolicy.maxAttempts} (the channel caps it at
 *       {@code maxRetryAttempts}, 5 unless set: set it to the policy's)</td></tr>
 *   <tr><td>backoff base, cap</td><td>{@code initialBackoff} = base, {@code maxBackoff} = cap,
 *       {@code backoffMultiplier} 2: the same ceilings, {@code min(cap, base × 2^n)}. gRPC has no full
 *       jitter: grpc-java 1.85 waits 0.8 to 1.2 times the ceiling, so its waits are about twice as long
 *       on average as the client's own loop and less spread (docs/client.md says why full jitter is
 *       the client's choice). Decorrelated jitter becomes the same ceilings.</td></tr>
 *   <tr><td>the allowlist</td><td>{@code retryableStatusCodes}: {@code UNAVAILABLE}, {@code
 *       RESOURCE_EXHAUSTED}, {@code ABORTED} (the in-flight answer). Never {@code INVALID_ARGUMENT},
 *       {@code PERMISSION_DENIED}, {@code UNAUTHENTICATED}, nor any other. A server's {@code
 *       grpc-retry-pushback-ms} (the binding sends it with ABORTED and UNAVAILABLE) replaces the
 *       backoff, as gRPC A6 defines.</td></tr>
 *   <tr><td>{@code deadline}</td><td>{@code timeout}: one deadline for the call, every attempt and
 *       wait included. {@code attemptTimeout} has no gRPC form.</td></tr>
 *   <tr><td>a {@link TokenBucketRetryBudget}</td><td>{@code retryThrottling}: gRPC takes one token
 *       per failed attempt, gives back {@code tokenRatio} per success and stops retrying below half
 *       of {@code maxTokens}; with the bucket's default costs (14 per transient retry, 1 back per
 *       success) that is {@code maxTokens} = 2 × capacity / 14 (at most 1000) and {@code tokenRatio}
 *       = 1/14. Another budget: no throttling.</td></tr>
 * </table>
 */
public final class GrpcRetryServiceConfig {
  /** The codes gRPC retries under the policy, in this order. */
  public static final List<Status.Code> RETRYABLE_CODES =
      List.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED, Status.Code.ABORTED);

  /** Codes the policy never retries, whatever else changes: the caller must fix the call. */
  public static final Set<Status.Code> NEVER_RETRIED =
      Set.of(
          Status.Code.INVALID_ARGUMENT, Status.Code.PERMISSION_DENIED, Status.Code.UNAUTHENTICATED);

  private GrpcRetryServiceConfig() {}

  /**
   * A service config that retries the unary methods of {@code services} by {@code policy}, each
   * named by service and method. Streaming methods are left out: the server binding passes them
   * through unguarded, and gRPC would resend a streaming call whose answer was lost before its
   * headers, running it twice.
   *
   * @param policy the retry policy
   * @param services the services, as their generated stubs give them ({@code
   *     PaymentServiceGrpc.getServiceDescriptor()}); at least one, with at least one unary method
   *     among them
   * @return the service config, as {@code defaultServiceConfig} takes it
   */
  public static Map<String, Object> forServices(RetryPolicy policy, ServiceDescriptor... services) {
    requireServices(policy, services.length);
    List<Object> names = new ArrayList<>();
    for (ServiceDescriptor service : services) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        String bare = method.getBareMethodName();
        if (method.getType() == MethodDescriptor.MethodType.UNARY && bare != null) {
          names.add(Map.of("service", service.getName(), "method", bare));
        }
      }
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("the services have no unary method to retry");
    }
    return serviceConfig(policy, names);
  }

  /**
   * A service config that retries <em>every</em> method of {@code services} by {@code policy},
   * streaming methods included, which nothing guards: gRPC resends a streaming call whose answer
   * was lost before its headers, and the server runs it again. Use it for services whose methods
   * are all unary or all safe to repeat; else {@link #forServices(RetryPolicy,
   * ServiceDescriptor...)}, which names the unary methods only.
   *
   * @param policy the retry policy
   * @param services full service names, {@code package.Service}; at least one
   * @return the service config, as {@code defaultServiceConfig} takes it
   */
  public static Map<String, Object> forServices(RetryPolicy policy, String... services) {
    requireServices(policy, services.length);
    List<Object> names = new ArrayList<>();
    for (String service : services) {
      names.add(Map.of("service", Objects.requireNonNull(service, "service")));
    }
    return serviceConfig(policy, names);
  }

  private static void requireServices(RetryPolicy policy, int services) {
    Objects.requireNonNull(policy, "policy");
    if (services == 0) {
      throw new IllegalArgumentException("name at least one service");
    }
  }

  private static Map<String, Object> serviceConfig(RetryPolicy policy, List<Object> names) {
    Map<String, Object> methodConfig = new LinkedHashMap<>();
    methodConfig.put("name", names);
    methodConfig.put("timeout", duration(policy.deadline()));
    if (policy.maxAttempts() >= 2) {
      // a policy of one attempt retries nothing; gRPC's retryPolicy needs at least two attempts
      methodConfig.put("retryPolicy", retryPolicy(policy));
    }
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("methodConfig", List.of(methodConfig));
    if (policy.budget() instanceof TokenBucketRetryBudget bucket) {
      config.put("retryThrottling", retryThrottling(bucket));
    }
    return config;
  }

  /**
   * The {@code retryPolicy} object of a method config.
   *
   * @param policy the retry policy, of at least two attempts
   * @return {@code maxAttempts}, {@code initialBackoff}, {@code maxBackoff}, {@code
   *     backoffMultiplier}, {@code retryableStatusCodes}
   * @throws IllegalArgumentException if the policy makes one attempt: gRPC's {@code retryPolicy}
   *     has at least two, and a method config without one does not retry ({@link #forServices}
   *     leaves it out)
   */
  public static Map<String, Object> retryPolicy(RetryPolicy policy) {
    if (policy.maxAttempts() < 2) {
      throw new IllegalArgumentException(
          "a policy of one attempt has no gRPC retryPolicy (maxAttempts must be >= 2), but was "
              + policy.maxAttempts());
    }
    Backoff backoff = policy.backoff();
    List<Object> codes = new ArrayList<>();
    RETRYABLE_CODES.forEach(c -> codes.add(c.name()));
    Map<String, Object> retry = new LinkedHashMap<>();
    // gRPC's service config parser reads JSON numbers as Double
    retry.put("maxAttempts", (double) policy.maxAttempts());
    retry.put("initialBackoff", duration(backoff.base()));
    retry.put("maxBackoff", duration(backoff.cap()));
    retry.put("backoffMultiplier", 2.0);
    retry.put("retryableStatusCodes", codes);
    return retry;
  }

  private static Map<String, Object> retryThrottling(TokenBucketRetryBudget bucket) {
    double maxTokens =
        Math.min(
            1000.0,
            Math.max(
                1.0,
                Math.floor(
                    2.0 * bucket.capacity() / TokenBucketRetryBudget.DEFAULT_TRANSIENT_COST)));
    // gRPC keeps three decimal places of the ratio
    double tokenRatio =
        BigDecimal.valueOf(TokenBucketRetryBudget.DEFAULT_SUCCESS_REFUND)
            .divide(
                BigDecimal.valueOf(TokenBucketRetryBudget.DEFAULT_TRANSIENT_COST),
                3,
                RoundingMode.HALF_UP)
            .doubleValue();
    Map<String, Object> throttling = new LinkedHashMap<>();
    throttling.put("maxTokens", maxTokens);
    throttling.put("tokenRatio", tokenRatio);
    return throttling;
  }

  /** A protobuf JSON duration: seconds with up to nine decimals and an {@code s}. */
  static String duration(Duration d) {
    return BigDecimal.valueOf(d.getSeconds())
            .add(BigDecimal.valueOf(d.getNano(), 9))
            .stripTrailingZeros()
            .toPlainString()
        + "s";
  }
}
