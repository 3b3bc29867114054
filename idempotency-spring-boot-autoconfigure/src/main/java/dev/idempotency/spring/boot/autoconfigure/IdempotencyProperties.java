package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.http.KeyRequirement;
import dev.idempotency.http.MismatchStatus;
import dev.idempotency.http.OversizedResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code idempotency.*} properties. Every value is checked when the context starts: one out of
 * range fails start-up with a message that names the property. Defaults are the library's own (see
 * {@code docs/http.md} and {@code docs/spring-boot.md}). The durations are written out (not the
 * engine's constants) so that the configuration metadata shows them; a test holds them equal.
 *
 * <p>About 590 lines, nearly all of them a field, its description and a getter and setter per
 * property, which Boot's binding and its metadata need; the groups are nested classes so that the
 * metadata groups them. A group that grows moves to its own class under its own prefix, as {@link
 * IdempotentMethodsProperties} is.
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
  private List<Endpoint> endpoints = new ArrayList<>();

  /**
   * The status of a key reused with another request: CONFLICT (409), UNPROCESSABLE_CONTENT,
   * BAD_REQUEST.
   */
  private MismatchStatus mismatchStatus = MismatchStatus.CONFLICT;

  /** What a request gets while its key is in flight under another request. */
  private final InFlight inFlight = new InFlight();

  /** Which stored responses are kept for replay. */
  private final StoredFailures storedFailures = new StoredFailures();

  /** The largest request body read; a larger one gets 413 before anything is claimed. */
  private DataSize maxRequestBodySize = DataSize.ofMegabytes(1);

  /** The largest response stored for replay. */
  private DataSize maxStoredResponseSize = DataSize.ofMegabytes(1);

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
  private final Filter filter = new Filter();

  /** The JDBC store built from the application's DataSource. */
  private final Jdbc jdbc = new Jdbc();

  /** The reaper, which deletes records past retention. */
  private final Reaper reaper = new Reaper();

  /** The completer, which resumes abandoned requests (needs a Completer.Resumer bean). */
  private final Completer completer = new Completer();

  /** The meters (with a MeterRegistry in the context). */
  private final Metrics metrics = new Metrics();

  /** One endpoint rule. */
  public static class Endpoint {
    /** The defaults. */
    public Endpoint() {}

    /** Path patterns: literal segments, * for one segment, a trailing ** for any rest. */
    private List<String> paths = new ArrayList<>(List.of("/**"));

    /** The methods the rule guards; never GET, HEAD, OPTIONS or TRACE. */
    private List<String> methods = new ArrayList<>(List.of("POST", "PATCH"));

    /** REQUIRED: no key is 400; OPTIONAL: no key, no idempotency. */
    private KeyRequirement requirement = KeyRequirement.REQUIRED;

    /**
     * Run each request in one transaction of the store (claim, the handler's statements, the stored
     * response; one commit). Only for handlers that call nothing outside the database.
     */
    private boolean inOneTransaction;

    public List<String> getPaths() {
      return paths;
    }

    public void setPaths(List<String> paths) {
      this.paths = paths;
    }

    public List<String> getMethods() {
      return methods;
    }

    public void setMethods(List<String> methods) {
      this.methods = methods;
    }

    public KeyRequirement getRequirement() {
      return requirement;
    }

    public void setRequirement(KeyRequirement requirement) {
      this.requirement = requirement;
    }

    public boolean isInOneTransaction() {
      return inOneTransaction;
    }

    public void setInOneTransaction(boolean inOneTransaction) {
      this.inOneTransaction = inOneTransaction;
    }
  }

  /** What a request gets while its key is in flight. */
  public static class InFlight {
    /** The defaults. */
    public InFlight() {}

    /**
     * CONFLICT: 409 with Retry-After at once; WAIT: hold the request up to max-wait for the replay,
     * then 409; ACCEPTED: 202 with a status URL under status-path.
     */
    private InFlightMode mode = InFlightMode.CONFLICT;

    /** With WAIT: the longest a duplicate is held (it holds a request thread). */
    private Duration maxWait = Duration.ofSeconds(5);

    /** With WAIT: how often the held duplicate looks again. */
    private Duration pollInterval = Duration.ofMillis(100);

    /** With ACCEPTED: the path of the status endpoint. */
    private String statusPath = "/idempotency-requests";

    /** The Retry-After of the in-flight 409, capped by the owner's remaining lease. */
    private Duration retryAfter = Duration.ofSeconds(1);

    public InFlightMode getMode() {
      return mode;
    }

    public void setMode(InFlightMode mode) {
      this.mode = mode;
    }

    public Duration getMaxWait() {
      return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
      this.maxWait = maxWait;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    public String getStatusPath() {
      return statusPath;
    }

    public void setStatusPath(String statusPath) {
      this.statusPath = statusPath;
    }

    public Duration getRetryAfter() {
      return retryAfter;
    }

    public void setRetryAfter(Duration retryAfter) {
      this.retryAfter = retryAfter;
    }
  }

  /** What a duplicate of a request still in flight gets. */
  public enum InFlightMode {
    /** 409 idempotency_request_in_flight with Retry-After, at once. */
    CONFLICT,
    /** Held up to max-wait for the first request's answer, replayed; then the 409. */
    WAIT,
    /** 202 Accepted with a Location to poll. */
    ACCEPTED
  }

  /** Which responses are stored for replay. */
  public static class StoredFailures {
    /** The defaults. */
    public StoredFailures() {}

    /**
     * Statuses never stored: a response with one releases the key, so a retry runs anew (typically
     * 429). Empty: every response is stored and replayed, 4xx and 5xx included.
     */
    private List<Integer> excludeStatuses = new ArrayList<>();

    public List<Integer> getExcludeStatuses() {
      return excludeStatuses;
    }

    public void setExcludeStatuses(List<Integer> excludeStatuses) {
      this.excludeStatuses = excludeStatuses;
    }
  }

  /** The servlet filter's registration. */
  public static class Filter {
    /** The defaults. */
    public Filter() {}

    /**
     * The filter's order; it must come after Spring Security's filter chain
     * (spring.security.filter.order, -100 by default), or start-up fails.
     */
    private int order = -90;

    /** The URL patterns the filter is mapped to. */
    private List<String> urlPatterns = new ArrayList<>(List.of("/*"));

    public int getOrder() {
      return order;
    }

    public void setOrder(int order) {
      this.order = order;
    }

    public List<String> getUrlPatterns() {
      return urlPatterns;
    }

    public void setUrlPatterns(List<String> urlPatterns) {
      this.urlPatterns = urlPatterns;
    }
  }

  /** The JDBC store. */
  public static class Jdbc {
    /** The defaults. */
    public Jdbc() {}

    /**
     * Let the store create its table and sequence at start-up (CREATE ... IF NOT EXISTS). Off:
     * production schemas come from a migration (classpath:db/idempotency/{vendor} for Flyway).
     */
    private boolean createSchemaIfMissing;

    /** The records table, optionally schema-qualified. */
    private String tableName = "idempotency_records";

    /** The query timeout of the store's statements, whole seconds; well below the lease. */
    private Duration statementTimeout = Duration.ofSeconds(5);

    public boolean isCreateSchemaIfMissing() {
      return createSchemaIfMissing;
    }

    public void setCreateSchemaIfMissing(boolean createSchemaIfMissing) {
      this.createSchemaIfMissing = createSchemaIfMissing;
    }

    public String getTableName() {
      return tableName;
    }

    public void setTableName(String tableName) {
      this.tableName = tableName;
    }

    public Duration getStatementTimeout() {
      return statementTimeout;
    }

    public void setStatementTimeout(Duration statementTimeout) {
      this.statementTimeout = statementTimeout;
    }
  }

  /** The reaper. */
  public static class Reaper {
    /** The defaults. */
    public Reaper() {}

    /** Whether this instance runs the reaper. */
    private boolean enabled = true;

    /** Time between two runs. */
    private Duration interval = Duration.ofMinutes(10);

    /** Records deleted per statement. */
    private int batchSize = 500;

    /** Delete statements per run. */
    private int maxBatches = 20;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public int getMaxBatches() {
      return maxBatches;
    }

    public void setMaxBatches(int maxBatches) {
      this.maxBatches = maxBatches;
    }
  }

  /** The completer. */
  public static class Completer {
    /** The defaults. */
    public Completer() {}

    /** Time between two runs. */
    private Duration interval = Duration.ofMinutes(1);

    /** Abandoned records resumed per run. */
    private int limit = 100;

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public int getLimit() {
      return limit;
    }

    public void setLimit(int limit) {
      this.limit = limit;
    }
  }

  /** The meters. */
  public static class Metrics {
    /** The defaults. */
    public Metrics() {}

    /** Time between two samples of the abandoned-keys gauge (one bounded store read each). */
    private Duration abandonedSampleInterval = Duration.ofMinutes(1);

    /** The most abandoned keys one sample counts. */
    private int abandonedSampleLimit = 1000;

    public Duration getAbandonedSampleInterval() {
      return abandonedSampleInterval;
    }

    public void setAbandonedSampleInterval(Duration abandonedSampleInterval) {
      this.abandonedSampleInterval = abandonedSampleInterval;
    }

    public int getAbandonedSampleLimit() {
      return abandonedSampleLimit;
    }

    public void setAbandonedSampleLimit(int abandonedSampleLimit) {
      this.abandonedSampleLimit = abandonedSampleLimit;
    }
  }

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

  public List<Endpoint> getEndpoints() {
    return endpoints;
  }

  public void setEndpoints(List<Endpoint> endpoints) {
    this.endpoints = endpoints;
  }

  public MismatchStatus getMismatchStatus() {
    return mismatchStatus;
  }

  public void setMismatchStatus(MismatchStatus mismatchStatus) {
    this.mismatchStatus = mismatchStatus;
  }

  public InFlight getInFlight() {
    return inFlight;
  }

  public StoredFailures getStoredFailures() {
    return storedFailures;
  }

  public DataSize getMaxRequestBodySize() {
    return maxRequestBodySize;
  }

  public void setMaxRequestBodySize(DataSize maxRequestBodySize) {
    this.maxRequestBodySize = maxRequestBodySize;
  }

  public DataSize getMaxStoredResponseSize() {
    return maxStoredResponseSize;
  }

  public void setMaxStoredResponseSize(DataSize maxStoredResponseSize) {
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

  public Filter getFilter() {
    return filter;
  }

  public Jdbc getJdbc() {
    return jdbc;
  }

  public Reaper getReaper() {
    return reaper;
  }

  public Completer getCompleter() {
    return completer;
  }

  public Metrics getMetrics() {
    return metrics;
  }
}
