package dev.idempotency.spring.boot.autoconfigure.internal;

import static dev.idempotency.spring.boot.autoconfigure.internal.PropertyChecks.set;

import dev.idempotency.Scope;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.InFlightPolicy;
import dev.idempotency.core.StoredResponsePolicy;
import dev.idempotency.http.EndpointRule;
import dev.idempotency.http.IdempotencyHttpBuilder;
import dev.idempotency.spring.boot.autoconfigure.IdempotencyProperties;
import java.time.Duration;
import java.util.List;

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
    IdempotencyProperties.InFlight inFlight = p.getInFlight();
    set(
        "idempotency.in-flight.retry-after",
        inFlight.getRetryAfter(),
        () -> b.inFlightRetryAfter(inFlight.getRetryAfter()));
    if (inFlight.getMode() == IdempotencyProperties.InFlightMode.WAIT) {
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
      throw PropertyChecks.engineSettings(e);
    }
    return b;
  }

  /** {@code b} with every HTTP property of {@code p} applied. */
  public static IdempotencyHttpBuilder http(IdempotencyHttpBuilder b, IdempotencyProperties p) {
    set("idempotency.header-name", p.getHeaderName(), () -> b.headerName(p.getHeaderName()));
    List<IdempotencyProperties.Endpoint> endpoints = p.getEndpoints();
    for (int i = 0; i < endpoints.size(); i++) {
      IdempotencyProperties.Endpoint e = endpoints.get(i);
      String property = "idempotency.endpoints[" + i + "]";
      for (String path : e.getPaths()) {
        set(
            property,
            e.getMethods() + " " + path,
            () -> {
              EndpointRule rule =
                  EndpointRule.of(e.getRequirement(), path, e.getMethods().toArray(String[]::new));
              b.endpoint(e.isInOneTransaction() ? rule.inOneTransaction() : rule);
            });
      }
    }
    set(
        "idempotency.mismatch-status",
        p.getMismatchStatus(),
        () -> b.mismatchStatus(p.getMismatchStatus()));
    IdempotencyProperties.InFlight inFlight = p.getInFlight();
    if (inFlight.getMode() == IdempotencyProperties.InFlightMode.ACCEPTED) {
      set(
          "idempotency.in-flight.status-path",
          inFlight.getStatusPath(),
          () -> b.inFlightAccepted(inFlight.getStatusPath()));
    }
    set(
        "idempotency.max-request-body-size",
        p.getMaxRequestBodySize(),
        () -> b.maxRequestBodyBytes(p.getMaxRequestBodySize().toBytes()));
    set(
        "idempotency.max-stored-response-size",
        p.getMaxStoredResponseSize(),
        () -> b.maxStoredResponseBytes(Math.toIntExact(p.getMaxStoredResponseSize().toBytes())));
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
