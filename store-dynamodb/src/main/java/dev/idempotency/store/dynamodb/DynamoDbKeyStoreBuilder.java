package dev.idempotency.store.dynamodb;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.store.dynamodb.internal.RecordRequests;
import dev.idempotency.store.dynamodb.internal.StoreErrors;
import java.time.Duration;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * Configures a {@link DynamoDbKeyStore}: {@link DynamoDbKeyStore#builder(DynamoDbClient)} starts
 * one with every setting at its default. Every setter validates its argument at once and names the
 * setting in its message. Not thread-safe; {@link #build()} yields a thread-safe store.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>{@code tableName}</td><td>{@value DynamoDbKeyStore#DEFAULT_TABLE}</td></tr>
 *   <tr><td>{@code retention}</td><td>72 h, the engine's default retention</td></tr>
 *   <tr><td>{@code callTimeout}</td><td>5 s</td></tr>
 *   <tr><td>{@code attemptTimeout}</td><td>2 s</td></tr>
 *   <tr><td>{@code renewalTimeout}</td><td>5 s</td></tr>
 *   <tr><td>{@code renewalParallelism}</td><td>32</td></tr>
 *   <tr><td>{@code maxTransactionAttempts}</td><td>3</td></tr>
 *   <tr><td>{@code createTableIfMissing}</td><td>off</td></tr>
 * </table>
 *
 * <p>A class of its own rather than nested in {@link DynamoDbKeyStore}, so that the store's source
 * is its SPI methods; code that chains {@code DynamoDbKeyStore.builder(client)...build()} never
 * names it.
 */
public final class DynamoDbKeyStoreBuilder {
  // read by the DynamoDbKeyStore constructor
  final DynamoDbClient client;
  String table = DynamoDbKeyStore.DEFAULT_TABLE;
  Duration retention = Duration.ofDays(3);
  Duration callTimeout = Duration.ofSeconds(5);
  Duration attemptTimeout = Duration.ofSeconds(2);
  Duration renewalTimeout = Duration.ofSeconds(5);
  int renewalParallelism = 32;
  int maxTransactionAttempts = 3;
  private boolean createTable;

  DynamoDbKeyStoreBuilder(DynamoDbClient client) {
    this.client = client;
  }

  /**
   * The table; default {@value DynamoDbKeyStore#DEFAULT_TABLE}.
   *
   * @throws IllegalArgumentException if it is not 3 to 255 of DynamoDB's table name characters
   */
  public DynamoDbKeyStoreBuilder tableName(String tableName) {
    Objects.requireNonNull(tableName, "tableName");
    if (!tableName.matches("[A-Za-z0-9_.-]{3,255}")) {
      throw new IllegalArgumentException(
          "tableName must be 3 to 255 characters of [A-Za-z0-9_.-], but was \"" + tableName + "\"");
    }
    this.table = tableName;
    return this;
  }

  /**
   * How long DynamoDB keeps a record once it completed, was released or its lease ended: the {@code
   * ttl} attribute the store writes is that time plus this, for DynamoDB's time to live (which
   * deletes within days after it, not at once). Default 72 h, the engine's default retention; set
   * it to the engine's, so that time to live never deletes a record the engine still keeps. A claim
   * whose replay window is longer than this is refused with a {@link KeyStoreException}: time to
   * live would delete completed records inside their window.
   *
   * @throws IllegalArgumentException if not positive
   */
  public DynamoDbKeyStoreBuilder retention(Duration retention) {
    this.retention = DynamoDbKeyStore.positive(retention, "retention");
    return this;
  }

  /**
   * How long one call to DynamoDB may take, the SDK's own retries included (its {@code
   * apiCallTimeout}); default 5 s. Past it the call throws {@link StoreUnavailableException}. Keep
   * it at most the engine's {@code leaseSafetyMargin} (5 s of the default 30 s lease), so that
   * retries of a throttled or unanswered request end while the caller still holds its lease: {@link
   * DynamoDbKeyStore#checkLease} refuses an engine whose margin is shorter.
   *
   * @throws IllegalArgumentException if not positive
   */
  public DynamoDbKeyStoreBuilder callTimeout(Duration timeout) {
    this.callTimeout = DynamoDbKeyStore.positive(timeout, "callTimeout");
    return this;
  }

  /**
   * How long one HTTP attempt may take (the SDK's {@code apiCallAttemptTimeout}); default 2 s.
   *
   * @throws IllegalArgumentException if not positive
   */
  public DynamoDbKeyStoreBuilder attemptTimeout(Duration timeout) {
    this.attemptTimeout = DynamoDbKeyStore.positive(timeout, "attemptTimeout");
    return this;
  }

  /**
   * How long one {@code heartbeatAll} may take, all its renewals together; default 5 s. A call also
   * never takes longer than a third of the lease it renews (the engine's default heartbeat
   * interval), so that it ends before the engine's next renewal is due. Renewals not done by then
   * are not sent, and the call throws {@link StoreUnavailableException} (which leases were renewed
   * is unknown; the engine tries again at its next heartbeat). Keep it below the engine's heartbeat
   * interval, which renews one batch at a time.
   *
   * @throws IllegalArgumentException if not positive
   */
  public DynamoDbKeyStoreBuilder renewalTimeout(Duration timeout) {
    this.renewalTimeout = DynamoDbKeyStore.positive(timeout, "renewalTimeout");
    return this;
  }

  /**
   * How many lease renewals of one {@code heartbeatAll} run at once; default 32, which renews a
   * thousand leases in 32 round trips. Each is one conditional write; the client's HTTP connection
   * pool should allow this many connections besides those the requests use (Apache's client allows
   * 50 by default; the URL-connection client has no limit).
   *
   * @throws IllegalArgumentException if not positive
   */
  public DynamoDbKeyStoreBuilder renewalParallelism(int parallelism) {
    this.renewalParallelism = DynamoDbKeyStore.positive(parallelism, "renewalParallelism");
    return this;
  }

  /**
   * How often {@code inPhase}/{@code completeWith} run the work when conflicting writes cancel its
   * transaction; default 3.
   *
   * @throws IllegalArgumentException if not positive
   */
  public DynamoDbKeyStoreBuilder maxTransactionAttempts(int attempts) {
    this.maxTransactionAttempts = DynamoDbKeyStore.positive(attempts, "maxTransactionAttempts");
    return this;
  }

  /**
   * Opt-in, for development and tests: {@link #build()} creates the table ({@link
   * DynamoDbKeyStore#createTableRequest}) if it does not exist.
   */
  public DynamoDbKeyStoreBuilder createTableIfMissing() {
    this.createTable = true;
    return this;
  }

  /**
   * Builds the store, creating the table first if asked.
   *
   * @throws StoreUnavailableException if DynamoDB cannot be reached to create the table
   * @throws KeyStoreException if creating the table failed otherwise
   */
  public DynamoDbKeyStore build() {
    if (createTable) {
      try {
        client.createTable(
            DynamoDbKeyStore.createTableRequest(table).toBuilder()
                .overrideConfiguration(
                    new RecordRequests(table, retention, callTimeout, attemptTimeout).bounds())
                .build());
        awaitActive();
      } catch (ResourceInUseException e) {
        // it exists already
      } catch (SdkException e) {
        throw StoreErrors.map("creating the table", table, e);
      }
    }
    return new DynamoDbKeyStore(this);
  }

  /**
   * Waits up to a minute for the new table to be active, polling every 100 ms (the SDK's waiter
   * polls every 20 s, and a new on-demand table is active within seconds).
   */
  private void awaitActive() {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (client.describeTable(b -> b.tableName(table)).table().tableStatus()
        != TableStatus.ACTIVE) {
      if (System.nanoTime() > deadline) {
        throw new KeyStoreException(
            "table " + table + " was not active a minute after its creation");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreUnavailableException("interrupted while table " + table + " was created", e);
      }
    }
  }
}
