package dev.idempotency.store.jdbc.internal;

import dev.idempotency.StoredResponse;
import dev.idempotency.spi.ClaimOutcome;
import dev.idempotency.spi.ClaimRequest;
import dev.idempotency.spi.OneTransactionOutcome;
import dev.idempotency.spi.OneTransactionWork;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.function.BiFunction;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The two ways {@code JdbcKeyStore} claims a record: the claim alone, in a transaction of its own,
 * and the one-transaction request (claim, work and completion, one commit), claiming first or, with
 * {@code optimisticOneTransaction}, running the work first. Both answer with the lease hint capped
 * as {@link #cappedLease} says.
 */
public final class Claims {
  private final SqlDialect sql;
  private final Transactions transactions;
  private final DataSource dataSource;
  private final boolean databaseClock;
  private final @Nullable OptimisticClaims optimistic; // null: one transaction claims first
  private final ResponseLimit responseLimit;

  /**
   * @param optimistic the optimistic one transaction, or null to claim first
   * @param databaseClock whether the database's clock judges leases
   */
  public Claims(
      SqlDialect sql,
      Transactions transactions,
      DataSource dataSource,
      boolean databaseClock,
      @Nullable OptimisticClaims optimistic,
      ResponseLimit responseLimit) {
    this.sql = sql;
    this.transactions = transactions;
    this.dataSource = dataSource;
    this.databaseClock = databaseClock;
    this.optimistic = optimistic;
    this.responseLimit = responseLimit;
  }

  /** The claim, in a transaction of its own (see {@code JdbcKeyStore#claim}). */
  public ClaimOutcome claim(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    ParamValues p = claimValues(request);
    return cappedLease(
        transactions.run(
            dataSource,
            "claim of " + request.id(),
            (c, autoCommit) -> {
              try {
                return sql.claim(c, autoCommit, p);
              } catch (SQLException e) {
                if (!SqlErrors.isClaimLockWait(e)) {
                  throw e;
                }
                // another transaction holds the record's row (a one-transaction request open on
                // it, say): in flight, as a one-transaction claim that waits as long answers
                if (!autoCommit) {
                  c.rollback();
                }
                return new ClaimOutcome.InFlight(request.lease());
              }
            }),
        request);
  }

  /** The one-transaction request (see {@code JdbcKeyStore#claimAndComplete}). */
  public OneTransactionOutcome claimAndComplete(
      ClaimRequest request, OneTransactionWork<Connection> work) throws Exception {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(work, "work");
    String label = "one-transaction request " + request.id();
    BiFunction<ClaimOutcome.Claimed, StoredResponse, ParamValues> completion =
        (won, response) -> {
          responseLimit.check(response, label);
          return sql.values(request.now())
              .record(request.id())
              .fence(won.fence())
              .response(response);
        };
    ParamValues claim = claimValues(request);
    ClaimOutcome.InFlight lockWait = new ClaimOutcome.InFlight(request.lease());
    // optimistic: null when a row of the key exists, and the claim decides as below
    OneTransactionOutcome outcome =
        optimistic != null
            ? optimistic.run(dataSource, label, claim, completion, lockWait, work)
            : null;
    if (outcome == null) {
      outcome = transactions.claimAndComplete(dataSource, label, claim, completion, lockWait, work);
    }
    if (outcome instanceof OneTransactionOutcome.NotRun notRun) {
      ClaimOutcome capped = cappedLease(notRun.outcome(), request);
      return capped == notRun.outcome() ? notRun : new OneTransactionOutcome.NotRun(capped);
    }
    return outcome;
  }

  /**
   * With the database clock each statement judges by its own start time; a claim that started
   * before the owner's claim and waited for its row lock would report more lease left than the
   * lease. It is a hint: never more than the asking claim's lease.
   */
  private ClaimOutcome cappedLease(ClaimOutcome outcome, ClaimRequest request) {
    if (databaseClock
        && outcome instanceof ClaimOutcome.InFlight f
        && f.leaseRemaining().compareTo(request.lease()) > 0) {
      return new ClaimOutcome.InFlight(request.lease());
    }
    return outcome;
  }

  private ParamValues claimValues(ClaimRequest request) {
    return sql.values(request.now())
        .record(request.id())
        .fingerprint(request.fingerprint().bytes())
        .lease(Nanos.of(request.lease()))
        .window(Nanos.of(request.replayWindow()));
  }
}
