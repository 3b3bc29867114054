package dev.idempotency.store.dynamodb;

import dev.idempotency.Execution;
import dev.idempotency.FenceToken;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.KeyStoreException;
import dev.idempotency.spi.LeaseLostException;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.StoreUnavailableException;
import dev.idempotency.spi.TransactionCallbacks;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.spi.TransactionalWork;
import dev.idempotency.store.dynamodb.internal.ItemLayout;
import dev.idempotency.store.dynamodb.internal.ParallelRenewals;
import dev.idempotency.store.dynamodb.internal.RecordItem;
import dev.idempotency.store.dynamodb.internal.RecordRequests;
import dev.idempotency.store.dynamodb.internal.StoreErrors;
import dev.idempotency.store.dynamodb.internal.TableScans;
import dev.idempotency.store.dynamodb.internal.TransactWrites;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The {@link dev.idempotency.spi.KeyStore} on Amazon DynamoDB: one conditional {@code UpdateItem}
 * arbitrates each claim, and every later write of the owner is an {@code UpdateItem} conditional on
 * its fence.
 *
 * <pre>{@code
 * DynamoDbClient client = DynamoDbClient.builder()                 // yours: region, credentials,
 *     .httpClient(UrlConnectionHttpClient.create())                // and the HTTP client
 *     .build();
 * DynamoDbKeyStore store = DynamoDbKeyStore.builder(client)
 *     .tableName("idempotency_records")                            // the default
 *     .build();
 * }</pre>
 *
 * <p>Time is judged by the {@code now} the engine passes (DynamoDB has no clock an expression can
 * read), so the clocks of the instances sharing a table should agree to well within a lease. The
 * store owns the threads that renew leases in parallel: {@link #close()} ends them; it does not
 * close the client, which is the caller's. Thread-safe; share one instance per table and client.
 * {@code docs/stores-dynamodb.md} has the item layout, every expression and the capacity each
 * outcome costs.
 *
 * <p>One class of about 590 lines, most of them javadoc: the public store, its nested builder (kept
 * nested so that {@code DynamoDbKeyStore.Builder} stays the API, as {@code JdbcKeyStore.Builder}
 * does) and the SPI methods, each a few lines over {@code internal.RecordRequests}, {@code
 * internal.RecordItem}, {@code internal.TableScans}, {@code internal.ParallelRenewals} and {@code
 * internal.TransactWrites}. The transaction loop stays here because the work's handle, {@link
 * DynamoDbTransaction}, is public API whose closing is not; the builder is the seam, should it
 * grow.
 */
public final class DynamoDbKeyStore
    implements TransactionalKeyStore<DynamoDbTransaction>, AutoCloseable {
  /** The table name {@link Builder#tableName} defaults to. */
  public static final String DEFAULT_TABLE = "idempotency_records";

  /**
   * The most bytes of a stored response (body plus header names and values) the store accepts: an
   * item holds at most 400 KB, and the rest of the record takes up to about 6 KB. Set the HTTP
   * layer's {@code maxStoredResponseBytes} to at most this, so that a larger response is stored as
   * its marker; a larger response given to {@link #complete} is refused, never truncated.
   */
  public static final int MAX_RESPONSE_BYTES = 390_000;

  /** How often a claim goes again when the item changed between its write and its read. */
  private static final int CLAIM_ATTEMPTS = 8;

  private final DynamoDbClient client;
  private final RecordRequests requests;
  private final TableScans scans;
  private final TransactWrites transactions;
  private final ParallelRenewals renewals;
  private final int maxTransactionAttempts;

  private DynamoDbKeyStore(Builder b) {
    this.client = b.client;
    this.requests = new RecordRequests(b.table, b.retention, b.callTimeout, b.attemptTimeout);
    this.scans = new TableScans(client, requests);
    this.transactions = new TransactWrites(client, requests);
    this.renewals =
        new ParallelRenewals(b.renewalParallelism, b.callTimeout, "dynamodb-renewal-" + b.table);
    this.maxTransactionAttempts = b.maxTransactionAttempts;
  }

  /**
   * Starts a builder over the application's client.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static Builder builder(DynamoDbClient client) {
    return new Builder(Objects.requireNonNull(client, "client"));
  }

  /**
   * The table's definition: partition key {@code pk} (S), no sort key, on-demand capacity. For
   * development and tests; production tables belong to infrastructure code (the attribute list in
   * {@code docs/stores-dynamodb.md}), with time to live on the attribute {@code ttl}.
   */
  public static CreateTableRequest createTableRequest(String tableName) {
    return CreateTableRequest.builder()
        .tableName(Objects.requireNonNull(tableName, "tableName"))
        .attributeDefinitions(
            AttributeDefinition.builder()
                .attributeName(ItemLayout.PK)
                .attributeType(ScalarAttributeType.S)
                .build())
        .keySchema(
            KeySchemaElement.builder().attributeName(ItemLayout.PK).keyType(KeyType.HASH).build())
        .billingMode(BillingMode.PAY_PER_REQUEST)
        .build();
  }

  /** The table. */
  public String tableName() {
    return requests.table();
  }

  /** {@code SHARED} and {@code TRANSACTIONAL}; time is the engine's, so no {@code SERVER_CLOCK}. */
  @Override
  public Set<StoreCapability> capabilities() {
    return Set.of(StoreCapability.SHARED, StoreCapability.TRANSACTIONAL);
  }

  /**
   * One conditional {@code UpdateItem}. A refused claim reads why from the item DynamoDB returns
   * with the refusal; where the server does not return it (dynalite), from one consistent {@code
   * GetItem}, and goes again should the item have become claimable in between.
   */
  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    byte[] fp = request.fingerprint().bytes();
    long now = ItemLayout.epochNanos(request.now());
    for (int attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      long nonce = RecordRequests.newNonce();
      Map<String, AttributeValue> found;
      try {
        UpdateItemResponse won =
            client.updateItem(
                requests.claim(
                    request.id(),
                    fp,
                    request.now(),
                    request.lease(),
                    request.replayWindow(),
                    nonce));
        return RecordItem.of(won.attributes()).claimed();
      } catch (ConditionalCheckFailedException e) {
        found = e.hasItem() ? e.item() : read(request.id(), "claim");
      } catch (SdkException e) {
        throw StoreErrors.map("claim of " + request.id(), tableName(), e);
      }
      if (found.isEmpty()) {
        continue; // purged since the refusal: claim again
      }
      RecordItem item = RecordItem.of(found);
      if (item.nonce() == nonce && item.state().equals(ItemLayout.IN_FLIGHT)) {
        return item.claimed(); // the SDK retried a claim whose first answer was lost: it won
      }
      Optional<ClaimOutcome> refused = item.refusedClaim(fp, now, request.replayWindow());
      if (refused.isPresent()) {
        return refused.get();
      }
    }
    throw new StoreUnavailableException(
        "claim of "
            + request.id()
            + " on DynamoDB table "
            + tableName()
            + ": the item changed between each of "
            + CLAIM_ATTEMPTS
            + " conditional writes and the read after it; nothing was decided");
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
    fenced("heartbeat", id, fence, requests.heartbeat(id, fence, now, positive(lease, "lease")));
  }

  /**
   * One conditional {@code UpdateItem} per lease, run in parallel on the store's renewal threads
   * (at most {@link Builder#renewalParallelism} at a time).
   */
  @Override
  public Set<RecordId> heartbeatAll(Map<RecordId, FenceToken> leases, Instant now, Duration lease) {
    Objects.requireNonNull(leases, "leases");
    Objects.requireNonNull(now, "now");
    leases.forEach(
        (id, fence) -> {
          Objects.requireNonNull(id, "leases: a record id");
          Objects.requireNonNull(fence, "leases: the fence of " + id);
        });
    positive(lease, "lease");
    if (leases.isEmpty()) {
      return Set.of();
    }
    return renewals.renewAll(leases, (id, fence) -> heartbeat(id, fence, now, lease));
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(point, "point");
    Objects.requireNonNull(now, "now");
    fenced(
        "checkpoint",
        id,
        fence,
        requests.checkpoint(id, fence, point, now, positive(lease, "lease")));
  }

  @Override
  public void complete(RecordId id, FenceToken fence, StoredResponse response, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
    fenced("complete", id, fence, requests.complete(id, fence, storable(response), now));
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
    fenced("release", id, fence, requests.release(id, fence, now));
  }

  /** One consistent {@code GetItem}; a released item is absent. */
  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    return RecordItem.present(read(id, "lookup")).map(RecordItem::snapshot);
  }

  /** A consistent scan of the whole table; see {@code docs/stores-dynamodb.md} for its cost. */
  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    return scans.findAbandoned(now, positive(limit, "limit"));
  }

  /**
   * A consistent scan, and a conditional {@code DeleteItem} per expired record, until {@code limit}
   * are deleted; see {@code docs/stores-dynamodb.md} for when DynamoDB's time to live does this
   * instead.
   */
  @Override
  public int deleteExpired(Instant now, Duration retention, int limit) {
    Objects.requireNonNull(now, "now");
    Duration r = positive(retention, "retention");
    return scans.deleteExpired(now, r, positive(limit, "limit"));
  }

  /**
   * Runs {@code work}, then commits what it added to its {@link DynamoDbTransaction} together with
   * the checkpoint to {@code next} in one {@code TransactWriteItems}. A transaction cancelled by a
   * conflicting write runs the work again, up to {@link Builder#maxTransactionAttempts} times, so
   * the work must have no effects besides what it adds to the handle. A condition of the work's own
   * items that fails comes out as DynamoDB's {@code TransactionCanceledException}, nothing
   * committed.
   *
   * <p>Not verified against a server here: dynalite, the tests' DynamoDB, has no transactions; the
   * request this builds is unit-tested ({@code docs/stores-dynamodb.md}).
   */
  @Override
  public <R> R inPhase(
      Execution execution, RecoveryPoint next, TransactionalWork<DynamoDbTransaction, R> work)
      throws Exception {
    Objects.requireNonNull(next, "next");
    R result =
        inTransaction(
            "phase " + next.name(),
            execution,
            work,
            r ->
                requests.checkpoint(
                    execution.recordId(),
                    execution.fence(),
                    next,
                    execution.now(),
                    positive(execution.lease(), "lease")));
    TransactionCallbacks.of(execution).phaseCommitted(next);
    return result;
  }

  /** As {@link #inPhase}, committing the completion with the response the work returns. */
  @Override
  public StoredResponse completeWith(
      Execution execution, TransactionalWork<DynamoDbTransaction, StoredResponse> work)
      throws Exception {
    StoredResponse response =
        inTransaction(
            "completion",
            execution,
            work,
            r ->
                requests.complete(
                    execution.recordId(),
                    execution.fence(),
                    storable(Objects.requireNonNull(r, "the work's response")),
                    execution.now()));
    TransactionCallbacks.of(execution).completionCommitted(response);
    return response;
  }

  /** Ends the renewal threads. The client stays open: it is the caller's. */
  @Override
  public void close() {
    renewals.close();
  }

  @Override
  public String toString() {
    return "DynamoDbKeyStore[table=" + tableName() + "]";
  }

  private <R> R inTransaction(
      String what,
      Execution execution,
      TransactionalWork<DynamoDbTransaction, R> work,
      Function<R, Update> fencedWrite)
      throws Exception {
    Objects.requireNonNull(execution, "execution");
    Objects.requireNonNull(work, "work");
    TransactionCallbacks callbacks = TransactionCallbacks.of(execution);
    callbacks.phaseOpening();
    try {
      for (int attempt = 1; ; attempt++) {
        DynamoDbTransaction tx = new DynamoDbTransaction();
        R result;
        try {
          result = work.run(tx);
        } finally {
          tx.close();
        }
        if (transactions.commit(
            transactions.request(tx.close(), fencedWrite.apply(result)),
            execution.recordId(),
            execution.fence(),
            what)) {
          return result;
        }
        if (attempt >= maxTransactionAttempts) {
          throw new StoreUnavailableException(
              "the "
                  + what
                  + " of "
                  + execution.recordId()
                  + " was cancelled by conflicting writes "
                  + attempt
                  + " times; nothing was committed");
        }
      }
    } finally {
      callbacks.phaseClosed();
    }
  }

  private void fenced(String op, RecordId id, FenceToken fence, Update update) {
    Map<String, AttributeValue> found;
    try {
      client.updateItem(requests.single(update));
      return;
    } catch (ConditionalCheckFailedException e) {
      found = e.hasItem() ? e.item() : read(id, op);
    } catch (SdkException e) {
      throw StoreErrors.map(op + " of " + id, tableName(), e);
    }
    throw new LeaseLostException(
        id, fence, found.isEmpty() ? "record is absent" : RecordItem.of(found).describe());
  }

  private Map<String, AttributeValue> read(RecordId id, String op) {
    try {
      Map<String, AttributeValue> item = client.getItem(requests.get(id)).item();
      return item == null ? Map.of() : item;
    } catch (SdkException e) {
      throw StoreErrors.map(op + " of " + id, tableName(), e);
    }
  }

  private static StoredResponse storable(StoredResponse response) {
    Objects.requireNonNull(response, "response");
    long size = response.bodyLength();
    for (Map.Entry<String, List<String>> h : response.headers().entrySet()) {
      size += h.getKey().length() * 3L;
      for (String v : h.getValue()) {
        size += v.length() * 3L + 1;
      }
    }
    if (size > MAX_RESPONSE_BYTES) {
      throw new KeyStoreException(
          "a response of about "
              + size
              + " bytes does not fit in one DynamoDB item (400 KB): the store keeps at most "
              + MAX_RESPONSE_BYTES
              + " bytes of body and headers. Nothing was written; set the HTTP layer's"
              + " maxStoredResponseBytes to at most DynamoDbKeyStore.MAX_RESPONSE_BYTES, so that a"
              + " larger response is stored as its marker");
    }
    return response;
  }

  private static Duration positive(@Nullable Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + d);
    }
    return d;
  }

  private static int positive(int n, String name) {
    if (n <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + n);
    }
    return n;
  }

  /**
   * Configures a {@link DynamoDbKeyStore}. Not thread-safe; {@link #build()} yields a thread-safe
   * store.
   */
  public static final class Builder {
    private final DynamoDbClient client;
    private String table = DEFAULT_TABLE;
    private Duration retention = Duration.ofDays(3);
    private Duration callTimeout = Duration.ofSeconds(5);
    private Duration attemptTimeout = Duration.ofSeconds(2);
    private int renewalParallelism = 16;
    private int maxTransactionAttempts = 3;
    private boolean createTable;

    private Builder(DynamoDbClient client) {
      this.client = client;
    }

    /**
     * The table; default {@value DynamoDbKeyStore#DEFAULT_TABLE}.
     *
     * @throws IllegalArgumentException if it is not 3 to 255 of DynamoDB's table name characters
     */
    public Builder tableName(String tableName) {
      Objects.requireNonNull(tableName, "tableName");
      if (!tableName.matches("[A-Za-z0-9_.-]{3,255}")) {
        throw new IllegalArgumentException(
            "tableName must be 3 to 255 characters of [A-Za-z0-9_.-], but was \""
                + tableName
                + "\"");
      }
      this.table = tableName;
      return this;
    }

    /**
     * How long DynamoDB keeps a record once it completed, was released or its lease ended: the
     * {@code ttl} attribute the store writes is that time plus this, for DynamoDB's time to live
     * (which deletes within days after it, not at once). Default 72 h, the engine's default
     * retention; set it to the engine's, so that time to live never deletes a record the engine
     * still keeps.
     */
    public Builder retention(Duration retention) {
      this.retention = positive(retention, "retention");
      return this;
    }

    /**
     * How long one call to DynamoDB may take, the SDK's own retries included (its {@code
     * apiCallTimeout}); default 5 s. Past it the call throws {@link StoreUnavailableException}.
     * Keep it well below the lease (30 s by default), so that retries of a throttled or unanswered
     * request end while the caller still holds its lease; the engine's heartbeat thread waits this
     * long at most for one renewal round.
     */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = positive(timeout, "callTimeout");
      return this;
    }

    /**
     * How long one HTTP attempt may take (the SDK's {@code apiCallAttemptTimeout}); default 2 s.
     */
    public Builder attemptTimeout(Duration timeout) {
      this.attemptTimeout = positive(timeout, "attemptTimeout");
      return this;
    }

    /**
     * How many lease renewals of one {@code heartbeatAll} run at once; default 16. Each is one
     * conditional write; the client's HTTP connection pool should allow at least this many
     * connections.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder renewalParallelism(int parallelism) {
      this.renewalParallelism = positive(parallelism, "renewalParallelism");
      return this;
    }

    /**
     * How often {@code inPhase}/{@code completeWith} run the work when conflicting writes cancel
     * its transaction; default 3.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxTransactionAttempts(int attempts) {
      this.maxTransactionAttempts = positive(attempts, "maxTransactionAttempts");
      return this;
    }

    /**
     * Opt-in, for development and tests: {@link #build()} creates the table ({@link
     * #createTableRequest}) if it does not exist.
     */
    public Builder createTableIfMissing() {
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
              createTableRequest(table).toBuilder()
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
          throw new StoreUnavailableException(
              "interrupted while table " + table + " was created", e);
        }
      }
    }
  }
}
