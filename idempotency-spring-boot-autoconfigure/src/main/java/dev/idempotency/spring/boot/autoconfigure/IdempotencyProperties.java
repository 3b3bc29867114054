package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.http.MismatchStatus;
import dev.idempotency.http.OversizedResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * The {@code idempotency.*} properties. Every value is checked when the context starts: one out of
 * range fails start-up with a message that names the property. Defaults are the library's own (see
 * {@code docs/http.md} and {@code docs/spring-boot.md}). The durations are written out (not the
 * engine's constants) so that the configuration metadata shows them; a test holds them equal.
 *
 * <p>Each group ({@code idempotency.in-flight.*}, {@code idempotency.jdbc.*}, ...) is a class of
 * its own, {@code Idempotency*Properties}, reached through this one's getter and bound under this
 * prefix; its field here carries {@code @NestedConfigurationProperty} so that the configuration
 * metadata lists the group's properties (without it, the processor descends only into classes
 * nested in this one). A group with an auto-configuration of its own has its own prefix and bean
 * instead, as {@link IdempotentMethodsProperties} has.
 */
@ConfigurationProperties("idempotency")
public class IdempotencyProperties {
  /** The defaults. */
  public IdempotencyProperties() {}

  /** Whether the filter, the engine, the store and the scheduled work are configured at all. */
  private boolean enabled = true;

  /** How long a completed request is replayed: a reused key after it is a new request. */
  private Duration replayWindow = Duration.ofHours(24);

  /** How long records are kept before the reaper deletes them; at least the replay window. */
  private Duration retention = Duration.ofDays(3);

  /** How long a claim is owned before another request may take it over, renewed while running. */
  private Duration lease = Duration.ofSeconds(30);

  /** How often running leases are renewed; shorter than the lease. Default: a third of it. */
  private @Nullable Duration heartbeatInterval;

  /** The longest an operation runs under its lease before the engine stops renewing it. */
  private Duration maxOperationTime = Duration.ofMinutes(15);

  /**
   * The longest retry chain the API supports (dead-letter replays, scheduled re-runs); the replay
   * window must be at least as long.
   */
  private Duration longestRetryChain = Duration.ZERO;

  /** The request header that carries the key. */
  private String headerName = "Idempotency-Key";

  /**
   * Which requests need a key, first match wins; a request no rule matches passes through. Empty:
   * POST and PATCH on every path, required.
   */
  private List<IdempotencyEndpointProperties> endpoints = new ArrayList<>();

  /**
   * The status of a key reused with another request: CONFLICT (409), UNPROCESSABLE_CONTENT,
   * BAD_REQUEST.
   */
  private MismatchStatus mismatchStatus = MismatchStatus.CONFLICT;

  /** What a request gets while its key is in flight under another request. */
  @NestedConfigurationProperty
  private final IdempotencyInFlightProperties inFlight = new IdempotencyInFlightProperties();

  /** Which stored responses are kept for replay. */
  @NestedConfigurationProperty
  private final IdempotencyStoredFailuresProperties storedFailures =
      new IdempotencyStoredFailuresProperties();

  /** The largest request body read; a larger one gets 413 before anything is claimed. */
  private DataSize maxRequestBodySize = DataSize.ofMegabytes(1);

  /**
   * The largest response stored for replay. Unset: 1MB, or what the store keeps when that is less
   * (DynamoDB's item limit, say); set above what the store keeps, start-up fails.
   */
  private @Nullable DataSize maxStoredResponseSize;

  /** What is stored for a response over max-stored-response-size: STORE_MARKER or RELEASE_KEY. */
  private OversizedResponse oversizedResponse = OversizedResponse.STORE_MARKER;

  /**
   * The scope of requests with no authenticated caller. Unset: such a request to a guarded endpoint
   * gets 401. Set it only for public endpoints with unguessable keys and non-private responses.
   */
  private @Nullable String anonymousScope;

  /** The Retry-After of the 503 answered while the store is unreachable. */
  private Duration storeUnavailableRetryAfter = Duration.ofSeconds(5);

  /** The base URI of the problem types in error bodies; point it at your API's docs. */
  private String problemTypeBase = "https://idempotency.dev/problems/";

  /** The servlet filter's registration. */
  @NestedConfigurationProperty
  private final IdempotencyFilterProperties filter = new IdempotencyFilterProperties();

  /** The JDBC store built from the application's DataSource. */
  @NestedConfigurationProperty
  private final IdempotencyJdbcProperties jdbc = new IdempotencyJdbcProperties();

  /** The reaper, which deletes records past retention. */
  @NestedConfigurationProperty
  private final IdempotencyReaperProperties reaper = new IdempotencyReaperProperties();

  /** The completer, which resumes abandoned requests (needs a Completer.Resumer bean). */
  @NestedConfigurationProperty
  private final IdempotencyCompleterProperties completer = new IdempotencyCompleterProperties();

  /** The meters (with a MeterRegistry in the context). */
  @NestedConfigurationProperty
  private final IdempotencyMetricsProperties metrics = new IdempotencyMetricsProperties();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Duration getReplayWindow() {
    return replayWindow;
  }

  public void setReplayWindow(Duration replayWindow) {
    this.replayWindow = replayWindow;
  }

  public Duration getRetention() {
    return retention;
  }

  public void setRetention(Duration retention) {
    this.retention = retention;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public @Nullable Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  public void setHeartbeatInterval(@Nullable Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  public Duration getMaxOperationTime() {
    return maxOperationTime;
  }

  public void setMaxOperationTime(Duration maxOperationTime) {
    this.maxOperationTime = maxOperationTime;
  }

  public Duration getLongestRetryChain() {
    return longestRetryChain;
  }

  public void setLongestRetryChain(Duration longestRetryChain) {
    this.longestRetryChain = longestRetryChain;
  }

  public String getHeaderName() {
    return headerName;
  }

  public void setHeaderName(String headerName) {
    this.headerName = headerName;
  }

  public List<IdempotencyEndpointProperties> getEndpoints() {
    return endpoints;
  }

  public void setEndpoints(List<IdempotencyEndpointProperties> endpoints) {
    this.endpoints = endpoints;
  }

  public MismatchStatus getMismatchStatus() {
    return mismatchStatus;
  }

  public void setMismatchStatus(MismatchStatus mismatchStatus) {
    this.mismatchStatus = mismatchStatus;
  }

  public IdempotencyInFlightProperties getInFlight() {
    return inFlight;
  }

  public IdempotencyStoredFailuresProperties getStoredFailures() {
    return storedFailures;
  }

  public DataSize getMaxRequestBodySize() {
    return maxRequestBodySize;
  }

  public void setMaxRequestBodySize(DataSize maxRequestBodySize) {
    this.maxRequestBodySize = maxRequestBodySize;
  }

  public @Nullable DataSize getMaxStoredResponseSize() {
    return maxStoredResponseSize;
  }

  public void setMaxStoredResponseSize(@Nullable DataSize maxStoredResponseSize) {
    this.maxStoredResponseSize = maxStoredResponseSize;
  }

  public OversizedResponse getOversizedResponse() {
    return oversizedResponse;
  }

  public void setOversizedResponse(OversizedResponse oversizedResponse) {
    this.oversizedResponse = oversizedResponse;
  }

  public @Nullable String getAnonymousScope() {
    return anonymousScope;
  }

  public void setAnonymousScope(@Nullable String anonymousScope) {
    this.anonymousScope = anonymousScope;
  }

  public Duration getStoreUnavailableRetryAfter() {
    return storeUnavailableRetryAfter;
  }

  public void setStoreUnavailableRetryAfter(Duration storeUnavailableRetryAfter) {
    this.storeUnavailableRetryAfter = storeUnavailableRetryAfter;
  }

  public String getProblemTypeBase() {
    return problemTypeBase;
  }

  public void setProblemTypeBase(String problemTypeBase) {
    this.problemTypeBase = problemTypeBase;
  }

  public IdempotencyFilterProperties getFilter() {
    return filter;
  }

  public IdempotencyJdbcProperties getJdbc() {
    return jdbc;
  }

  public IdempotencyReaperProperties getReaper() {
    return reaper;
  }

  public IdempotencyCompleterProperties getCompleter() {
    return completer;
  }

  public IdempotencyMetricsProperties getMetrics() {
    return metrics;
  }
}
