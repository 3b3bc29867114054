package dev.idempotency.spring.boot.autoconfigure.internal;

import static dev.idempotency.spring.boot.autoconfigure.internal.PropertyChecks.set;

import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.StoredResponsePolicy;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttp;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.spring.boot.autoconfigure.IdempotencyEndpointProperties;
import dev.idempotency.spring.boot.autoconfigure.IdempotencyInFlightProperties;
import dev.idempotency.spring.boot.autoconfigure.IdempotencyProperties;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/** Maps {@link IdempotencyProperties} onto the engine's and the HTTP handler's builders. */
public final class PropertyMapping {
  private PropertyMapping() {}

  /**
   * The engine's configuration from {@code p}, checked: each value by its own rule, then the
   * settings against each other.
   */
  public static IdempotencyConfig.Builder engineConfig(IdempotencyProperties p) {
    IdempotencyConfig.Builder b = IdempotencyConfig.builder();
    set(
        "idempotency.replay-window",
        p.getReplayWindow(),
        () -> b.replayWindow(p.getReplayWindow()));
    set("idempotency.retention", p.getRetention(), () -> b.retention(p.getRetention()));
    set("idempotency.lease", p.getLease(), () -> b.lease(p.getLease()));
    Duration heartbeat = p.getHeartbeatInterval();
    if (heartbeat != null) {
      set("idempotency.heartbeat-interval", heartbeat, () -> b.heartbeatInterval(heartbeat));
    }
    set(
        "idempotency.max-operation-time",
        p.getMaxOperationTime(),
        () -> b.maxOperationTime(p.getMaxOperationTime()));
    set(
        "idempotency.longest-retry-chain",
        p.getLongestRetryChain(),
        () -> b.longestRetryChain(p.getLongestRetryChain()));
    IdempotencyInFlightProperties inFlight = p.getInFlight();
    set(
        "idempotency.in-flight.retry-after",
        inFlight.getRetryAfter(),
        () -> b.inFlightRetryAfter(inFlight.getRetryAfter()));
    if (inFlight.getMode() == IdempotencyInFlightProperties.Mode.WAIT) {
      set(
          "idempotency.in-flight.max-wait",
          inFlight.getMaxWait() + " (poll-interval " + inFlight.getPollInterval() + ")",
          () ->
              b.inFlightPolicy(
                  InFlightPolicy.waitUpTo(inFlight.getMaxWait(), inFlight.getPollInterval())));
    }
    List<Integer> excluded = p.getStoredFailures().getExcludeStatuses();
    if (!excluded.isEmpty()) {
      set(
          "idempotency.stored-failures.exclude-statuses",
          excluded,
          () ->
              b.storedResponsePolicy(
                  StoredResponsePolicy.storeAllExcept(
                      excluded.stream().mapToInt(Integer::intValue).toArray())));
    }
    try {
      b.build(); // the checks across settings, now, so that they name properties
    } catch (IllegalArgumentException e) {
      throw PropertyChecks.engineSettings(
          e, engineValues(p), engineValues(new IdempotencyProperties()));
    }
    return b;
  }

  /** The engine settings of {@code p} that a check across settings can name, by property. */
  private static Map<String, @Nullable Object> engineValues(IdempotencyProperties p) {
    Map<String, @Nullable Object> values = new HashMap<>();
    values.put("idempotency.replay-window", p.getReplayWindow());
    values.put("idempotency.retention", p.getRetention());
    values.put("idempotency.lease", p.getLease());
    values.put("idempotency.heartbeat-interval", p.getHeartbeatInterval());
    values.put("idempotency.max-operation-time", p.getMaxOperationTime());
    values.put("idempotency.longest-retry-chain", p.getLongestRetryChain());
    return values;
  }

  /**
   * Builds {@code b}: its checks against the store (the stored-response limit against what the
   * store keeps) name the property that set the limit.
   */
  public static IdempotencyHttp build(IdempotencyHttpBuilder b, IdempotencyProperties p) {
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      DataSize maxStored = p.getMaxStoredResponseSize();
      throw new InvalidConfigurationPropertyValueException(
          "idempotency.max-stored-response-size",
          maxStored == null ? "(unset)" : maxStored,
          String.valueOf(e.getMessage())
              .replace("maxStoredResponseBytes is", "idempotency.max-stored-response-size is")
              .replace("set maxStoredResponseBytes", "set idempotency.max-stored-response-size"));
    }
  }

  /** {@code b} with every HTTP property of {@code p} applied. */
  public static IdempotencyHttpBuilder http(IdempotencyHttpBuilder b, IdempotencyProperties p) {
    set("idempotency.header-name", p.getHeaderName(), () -> b.headerName(p.getHeaderName()));
    List<IdempotencyEndpointProperties> endpoints = p.getEndpoints();
    for (int i = 0; i < endpoints.size(); i++) {
      IdempotencyEndpointProperties e = endpoints.get(i);
      String property = "idempotency.endpoints[" + i + "]";
      for (String path : e.getPaths()) {
        set(
            property,
            e.getMethods() + " " + path,
            () -> {
              EndpointRule rule =
                  EndpointRule.of(e.getRequirement(), path, e.getMethods().toArray(String[]::new));
              Boolean oneTransaction = e.getInOneTransaction();
              // unset: the rule chooses nothing, and runs in one transaction where the store can
              b.endpoint(
                  oneTransaction == null
                      ? rule
                      : oneTransaction ? rule.inOneTransaction() : rule.stepped());
            });
      }
    }
    set(
        "idempotency.mismatch-status",
        p.getMismatchStatus(),
        () -> b.mismatchStatus(p.getMismatchStatus()));
    IdempotencyInFlightProperties inFlight = p.getInFlight();
    if (inFlight.getMode() == IdempotencyInFlightProperties.Mode.ACCEPTED) {
      set(
          "idempotency.in-flight.status-path",
          inFlight.getStatusPath(),
          () -> b.inFlightAccepted(inFlight.getStatusPath()));
    }
    set(
        "idempotency.max-request-body-size",
        p.getMaxRequestBodySize(),
        () -> b.maxRequestBodyBytes(p.getMaxRequestBodySize().toBytes()));
    DataSize maxStored = p.getMaxStoredResponseSize();
    if (maxStored != null) {
      set(
          "idempotency.max-stored-response-size",
          maxStored,
          () -> b.maxStoredResponseBytes(Math.toIntExact(maxStored.toBytes())));
    }
    set(
        "idempotency.oversized-response",
        p.getOversizedResponse(),
        () -> b.oversizedResponse(p.getOversizedResponse()));
    String anonymous = p.getAnonymousScope();
    if (anonymous != null) {
      set("idempotency.anonymous-scope", anonymous, () -> b.anonymousScope(Scope.of(anonymous)));
    }
    set(
        "idempotency.store-unavailable-retry-after",
        p.getStoreUnavailableRetryAfter(),
        () -> b.storeUnavailableRetryAfter(p.getStoreUnavailableRetryAfter()));
    set(
        "idempotency.problem-type-base",
        p.getProblemTypeBase(),
        () -> b.problemTypeBase(p.getProblemTypeBase()));
    return b;
  }
}
