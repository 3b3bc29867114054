package dev.idempotency.store.dynamodb;

import dev.idempotency.FenceToken;
import dev.idempotency.KeyStoreException;
import dev.idempotency.RecordId;
import dev.idempotency.RecoveryPoint;
import dev.idempotency.StoreUnavailableException;
import dev.idempotency.StoredResponse;
import dev.idempotency.TransactionalWork;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSnapshot;
import dev.idempotency.spi.StoreCapability;
import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.store.dynamodb.internal.FencedWrites;
import dev.idempotency.store.dynamodb.internal.ItemClaims;
import dev.idempotency.store.dynamodb.internal.ItemLayout;
import dev.idempotency.store.dynamodb.internal.ParallelRenewals;
import dev.idempotency.store.dynamodb.internal.RecordItem;
import dev.idempotency.store.dynamodb.internal.RecordRequests;
import dev.idempotency.store.dynamodb.internal.ResponseBudget;
import dev.idempotency.store.dynamodb.internal.TableListing;
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
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Update;

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
 */
public final class DynamoDbKeyStore
    implements TransactionalKeyStore<DynamoDbTransaction>, AutoCloseable {
  /** The table name {@link DynamoDbKeyStoreBuilder#tableName} defaults to. */
  public static final String DEFAULT_TABLE = "idempotency_records";

  /**
   * The most bytes of a stored response ({@link StoredResponse#size()}: body plus header names and
   * values) the store keeps, {@link #maxResponseBytes()}: DynamoDB's 400 KB item less the record's
   * other attributes at their largest and 4 KiB for the framing of the header list. Set the
   * binding's stored-response limit to at most this, so that a larger response is stored as its
   * marker; a larger response given to {@link #complete} is refused, never truncated.
   */
  public static final int MAX_RESPONSE_BYTES = (int) ResponseBudget.MAX_RESPONSE_BYTES;

  private final RecordRequests requests;
  private final FencedWrites writes;
  private final ItemClaims claims;
  private final TableScans scans;
  private final TableListing listing;
  private final TransactWrites transactions;
  private final ParallelRenewals renewals;
  private final Duration renewalTimeout;
  private final Duration callTimeout;
  private final Duration attemptTimeout;
  private final int maxTransactionAttempts;

  DynamoDbKeyStore(DynamoDbKeyStoreBuilder b) {
    this.requests = new RecordRequests(b.table, b.retention, b.callTimeout, b.attemptTimeout);
    this.writes = new FencedWrites(b.client, requests);
    this.claims = new ItemClaims(b.client, requests, writes);
    this.scans = new TableScans(b.client, requests);
    this.listing = new TableListing(b.client, requests);
    this.transactions = new TransactWrites(b.client, requests);
    this.renewals = new ParallelRenewals(b.renewalParallelism, "dynamodb-renewal-" + b.table);
    this.renewalTimeout = b.renewalTimeout;
    this.callTimeout = b.callTimeout;
    this.attemptTimeout = b.attemptTimeout;
    this.maxTransactionAttempts = b.maxTransactionAttempts;
  }

  /**
   * Starts a builder over the application's client.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static DynamoDbKeyStoreBuilder builder(DynamoDbClient client) {
    return new DynamoDbKeyStoreBuilder(Objects.requireNonNull(client, "client"));
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

  /**
   * {@inheritDoc}
   *
   * <p>{@link #MAX_RESPONSE_BYTES}. A response within it whose header list needs more than 4 KiB of
   * framing (five bytes per header and one per value, about 680 headers of one value) is refused
   * too, unless the body leaves that room.
   */
  @Override
  public long maxResponseBytes() {
    return MAX_RESPONSE_BYTES;
  }

  /**
   * Refuses an engine whose lease a call of this store can outlive: one call, the SDK's retries
   * included, takes up to {@link DynamoDbKeyStoreBuilder#callTimeout}, and the engine tells an
   * owner that its lease is unconfirmed {@code leaseSafetyMargin} before the lease's end. A
   * completion the SDK still retries after that point can end after the lease, when a retry of the
   * request may have taken the key over and run the operation again. So {@code callTimeout} must
   * not be longer than the margin. Call it with the engine's settings when both are built ({@code
   * config.lease()}, {@code config.leaseSafetyMargin()}); with the defaults of both (5 s, and 5 s
   * of a 30 s lease) it passes.
   *
   * @param lease the engine's lease
   * @param leaseSafetyMargin the engine's lease safety margin
   * @throws IllegalStateException naming the store's {@code callTimeout} and {@code attemptTimeout}
   *     and the engine's {@code lease} and {@code leaseSafetyMargin}
   */
  public void checkLease(Duration lease, Duration leaseSafetyMargin) {
    positive(lease, "lease");
    positive(leaseSafetyMargin, "leaseSafetyMargin");
    if (callTimeout.compareTo(leaseSafetyMargin) > 0) {
      throw new IllegalStateException(
          "the DynamoDB store's callTimeout ("
              + callTimeout
              + ", every attempt of attemptTimeout "
              + attemptTimeout
              + " and the SDK's retries within it) is longer than the engine's leaseSafetyMargin ("
              + leaseSafetyMargin
              + " of its lease "
              + lease
              + "): a completion the SDK still retries when the engine tells its owner that the"
              + " lease is unconfirmed can end after the lease, when a retry may have taken the"
              + " key over and run the operation again. Set DynamoDbKeyStoreBuilder.callTimeout"
              + " to at most "
              + leaseSafetyMargin
              + ", or lengthen the engine's lease");
    }
  }

  /**
   * {@code SHARED}, {@code TRANSACTIONAL}, {@code LISTING} and {@code EXTEND_RETENTION}; time is
   * the engine's, so no {@code SERVER_CLOCK}.
   */
  @Override
  public Set<StoreCapability> capabilities() {
    return Set.of(
        StoreCapability.SHARED,
        StoreCapability.TRANSACTIONAL,
        StoreCapability.LISTING,
        StoreCapability.EXTEND_RETENTION);
  }

  /**
   * One conditional {@code UpdateItem}. A refused claim reads why from the item DynamoDB returns
   * with the refusal; where the server does not return it (dynalite), from one consistent {@code
   * GetItem}, and goes again should the item have become claimable in between. A claim whose answer
   * was lost reads the item once, and reports the win its write made.
   *
   * @throws KeyStoreException if the request's replay window is longer than the store's {@link
   *     DynamoDbKeyStoreBuilder#retention}, after which time to live deletes the record
   */
  @Override
  public ClaimOutcome claim(ClaimRequest request) {
    return claims.claim(Objects.requireNonNull(request, "request"));
  }

  @Override
  public void heartbeat(RecordId id, FenceToken fence, Instant now, Duration lease) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
    writes.write(
        "heartbeat", id, fence, requests.heartbeat(id, fence, now, positive(lease, "lease")));
  }

  /**
   * One conditional {@code UpdateItem} per lease, run in parallel on the store's renewal threads
   * (at most {@link DynamoDbKeyStoreBuilder#renewalParallelism} at a time), all within {@link
   * DynamoDbKeyStoreBuilder#renewalTimeout} and a third of {@code lease}. A renewal that meets a
   * transaction on its item goes again within that time.
   *
   * @throws StoreUnavailableException if a renewal could not reach DynamoDB, did not end in time,
   *     or the store was closed: which leases were renewed is then unknown
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
    Duration third = lease.dividedBy(3);
    Duration budget = renewalTimeout.compareTo(third) < 0 ? renewalTimeout : third;
    return renewals.renewAll(
        leases,
        budget,
        (id, fence, deadline) ->
            writes.renew(id, requests.heartbeat(id, fence, now, lease), deadline));
  }

  @Override
  public void checkpoint(
      RecordId id, FenceToken fence, RecoveryPoint point, Instant now, Duration lease) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(point, "point");
    Objects.requireNonNull(now, "now");
    writes.write(
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
    writes.write("complete", id, fence, requests.complete(id, fence, storable(response), now));
  }

  @Override
  public void release(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
    writes.write("release", id, fence, requests.release(id, fence, now));
  }

  /**
   * One conditional {@code UpdateItem}: {@code keep} for the reaper, and {@code ttl} made a string
   * that time to live ignores, for good: the item is then deleted by {@link #deleteExpired} only
   * ({@code docs/stores-dynamodb.md}, "Keeping a record longer").
   */
  @Override
  public void extendRetention(RecordId id, FenceToken fence, Instant keepUntil, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(keepUntil, "keepUntil");
    Objects.requireNonNull(now, "now");
    writes.extend(id, fence, requests.extend(id, fence, keepUntil));
  }

  /** One consistent {@code GetItem}; a released item is absent. */
  @Override
  public Optional<RecordSnapshot> lookup(RecordId id) {
    Objects.requireNonNull(id, "id");
    return RecordItem.present(writes.read(id, "lookup")).map(RecordItem::snapshot);
  }

  /** A consistent scan of the whole table; see {@code docs/stores-dynamodb.md} for its cost. */
  @Override
  public List<RecordSnapshot> findAbandoned(Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    return scans.findAbandoned(now, positive(limit, "limit"));
  }

  /**
   * A consistent scan with the selection as its filter, paged by {@code ExclusiveStartKey}; see
   * {@code docs/stores-dynamodb.md}, "Listing records", for its cost.
   */
  @Override
  public RecordPage list(RecordQuery query) {
    Objects.requireNonNull(query, "query");
    return listing.list(query);
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
   * conflicting write runs the work again, up to {@link
   * DynamoDbKeyStoreBuilder#maxTransactionAttempts} times, so the work must have no effects besides
   * what it adds to the handle. A condition of the work's own items that fails comes out as
   * DynamoDB's {@code TransactionCanceledException}, nothing committed.
   *
   * <p>Not verified against a server here: dynalite, the tests' DynamoDB, has no transactions; the
   * request this builds is unit-tested ({@code docs/stores-dynamodb.md}).
   */
  @Override
  public <R> R inPhase(
      RecordId id,
      FenceToken fence,
      RecoveryPoint next,
      Instant now,
      Duration lease,
      TransactionalWork<DynamoDbTransaction, R> work)
      throws Exception {
    Objects.requireNonNull(next, "next");
    Duration held = positive(lease, "lease");
    requireOwner(id, fence, now);
    return inTransaction(
        "phase " + next.name(),
        id,
        fence,
        work,
        r -> requests.checkpoint(id, fence, next, now, held));
  }

  /** As {@link #inPhase}, committing the completion with the response the work returns. */
  @Override
  public StoredResponse completeWith(
      RecordId id,
      FenceToken fence,
      Instant now,
      TransactionalWork<DynamoDbTransaction, StoredResponse> work)
      throws Exception {
    requireOwner(id, fence, now);
    return inTransaction(
        "completion",
        id,
        fence,
        work,
        r ->
            requests.complete(
                id, fence, storable(Objects.requireNonNull(r, "the work's response")), now));
  }

  /** The transaction handle of every work: a {@link DynamoDbTransaction}. */
  @Override
  public Class<DynamoDbTransaction> transactionType() {
    return DynamoDbTransaction.class;
  }

  private static void requireOwner(RecordId id, FenceToken fence, Instant now) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fence, "fence");
    Objects.requireNonNull(now, "now");
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
      RecordId id,
      FenceToken fence,
      TransactionalWork<DynamoDbTransaction, R> work,
      Function<R, Update> fencedWrite)
      throws Exception {
    Objects.requireNonNull(work, "work");
    for (int attempt = 1; ; attempt++) {
      DynamoDbTransaction tx = new DynamoDbTransaction(tableName(), RecordRequests.key(id));
      R result;
      try {
        result = work.run(tx);
      } finally {
        tx.close();
      }
      if (transactions.commit(
          transactions.request(tx.close(), fencedWrite.apply(result)), id, fence, what)) {
        return result;
      }
      if (attempt >= maxTransactionAttempts) {
        throw new StoreUnavailableException(
            "the "
                + what
                + " of "
                + id
                + " was cancelled by conflicting writes "
                + attempt
                + " times; nothing was committed");
      }
    }
  }

  private static StoredResponse storable(StoredResponse response) {
    return ResponseBudget.storable(Objects.requireNonNull(response, "response"));
  }

  static Duration positive(@Nullable Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + d);
    }
    return d;
  }

  static int positive(int n, String name) {
    if (n <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + n);
    }
    return n;
  }
}
