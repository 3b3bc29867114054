package dev.idempotency.tck.internal;

/**
 * The numbered rules of {@code tck/SPEC.md}, each with what to check when it fails. Every failure
 * message the TCK produces starts with "Rule x.y violated", so a failing build names the rule, and
 * the self-test can require that a deliberately broken store fails the rule it breaks. The texts
 * here are the rules' one source: SPEC.md's rule tables repeat them with markdown, and {@code
 * SpecConsistencyTest} holds each row's rule and what to check equal to {@link #text} and {@link
 * #hint}, word for word.
 */
public enum Rule {
  // 1. claim outcomes
  R1_1(
      "1.1",
      "A claim of a record that does not exist returns Claimed with takeover = false and no "
          + "resumeFrom, and leaves the record IN_FLIGHT with the request's fingerprint, the "
          + "returned fence, a lease until now + lease and no recovery point.",
      "that claim inserts the record when none exists, reports Claimed, and stores the "
          + "fingerprint, fence and lease it returned"),
  R1_2(
      "1.2",
      "A claim with the same fingerprint of an IN_FLIGHT record whose lease is live (now < "
          + "leaseExpiresAt) returns InFlight and changes nothing.",
      "that claim compares the lease expiry with now and does not overwrite a live record"),
  R1_3(
      "1.3",
      "InFlight.leaseRemaining is leaseExpiresAt - now by the clock the store judges time by "
          + "(between 0 and the lease for a SERVER_CLOCK store).",
      "that InFlight is built from the stored lease expiry minus now, not from the claim's "
          + "own lease"),
  R1_4(
      "1.4",
      "A claim with the same fingerprint of a record COMPLETE within its replay window "
          + "returns Completed with the stored response and completion time, and changes nothing.",
      "that claim reads the stored response back and never re-claims a completed record "
          + "within the window"),
  R1_5(
      "1.5",
      "A claim with another fingerprint of an IN_FLIGHT record returns Mismatch(IN_FLIGHT) "
          + "and changes nothing, whether or not its lease expired.",
      "that the fingerprint comparison comes before the lease check: only the same request "
          + "may take over"),
  R1_6(
      "1.6",
      "A claim with another fingerprint of a record COMPLETE within its window returns "
          + "Mismatch(COMPLETE) and changes nothing; the stored response is never returned for it.",
      "that claim compares the stored fingerprint before replaying"),
  R1_7(
      "1.7",
      "lookup returns the raw record and changes nothing: empty when never claimed, released "
          + "or purged; otherwise state, fingerprint, current fence, lease expiry (in flight), "
          + "recovery point, response and completion time as stored, also past the lease or the "
          + "window.",
      "that lookup reads without side effects and does not filter by lease or window"),

  // 2. atomicity and concurrency
  R2_1(
      "2.1",
      "Every method is atomic and linearizable per record: each call takes effect at one "
          + "instant between its invocation and its return. Sequential histories follow the "
          + "reference model call by call; small concurrent histories have a linearization the "
          + "model accepts. Nothing is promised across records.",
      "that each method is one atomic statement, transaction or script per record, and that "
          + "reads see the latest committed write"),
  R2_2(
      "2.2",
      "Instances over the same records (peers) see each other's writes as soon as the write "
          + "returned.",
      "that no instance caches records and that reads go to the primary (no stale replica or "
          + "eventually consistent reads)"),
  R2_3(
      "2.3",
      "Of N concurrent claims of one record (N = 2, 4, 8, 16, 32, 64; threads spread over "
          + "the store and its peers), exactly one returns Claimed.",
      "that the store's claim is a single conditional write (unique constraint, conditional "
          + "put, a script) and never a read followed by a write"),
  R2_4(
      "2.4",
      "Every loser of a claim race sees InFlight or Completed with the winner's "
          + "byte-identical response; once the winner completed, every claim, through every "
          + "instance, returns that Completed.",
      "that a losing claim reports the record it lost to, and that the completion is visible "
          + "to every instance"),
  R2_5(
      "2.5",
      "Of concurrent takeovers of one expired lease, exactly one returns Claimed(takeover = "
          + "true) with a fence greater than the old owner's; the others see InFlight; afterwards "
          + "the old owner's complete is refused and the winner's accepted.",
      "that the takeover is conditional on the fence (or lease) the claim read, in the same "
          + "atomic step"),
  R2_6(
      "2.6",
      "Concurrent histories keep the invariants: per record, fences are unique and increase "
          + "in real-time order; a fenced write succeeds only with the then-current fence; a "
          + "replayed response is one a successful complete stored, and a newer generation's "
          + "response is never followed by an older one's; between two successful completions "
          + "there is a fresh claim (one committed side effect per generation).",
      "the atomicity of claim and of every fenced write (compare-and-set on the fence, in "
          + "one step)"),

  // 3. fencing
  R3_1(
      "3.1",
      "Every Claimed returns a fence strictly greater than every fence issued before for "
          + "that record: after a takeover, a release, the window passing, and a purge.",
      "that the fence counter survives release and deletion of the record (keep it outside "
          + "the record, or use a store-wide sequence), that a re-claim never starts again at 1, "
          + "and that the fence is drawn in the same atomic step that installs the record (drawn "
          + "before it, a concurrent claim can install and release a later fence first)"),
  R3_2(
      "3.2",
      "After a takeover, the previous owner's heartbeat, checkpoint, complete and release "
          + "throw LeaseLostException and change nothing.",
      "that every write after the claim is conditional on the presented fence being the "
          + "record's current one (WHERE fence = ?, a condition expression, a compare in the "
          + "script)"),
  R3_3(
      "3.3",
      "A fenced write is conditional on the fence and the IN_FLIGHT state only: an owner "
          + "whose lease expired but was not taken over can still heartbeat, checkpoint, complete "
          + "and release.",
      "that fenced writes do not also require a live lease"),
  R3_4(
      "3.4",
      "A fenced write to a record that does not exist (never claimed, released, purged), or "
          + "with a fence that is not the record's current one (never issued for it), throws "
          + "LeaseLostException and creates or changes nothing.",
      "that fenced writes are updates conditional on the record existing with that fence, "
          + "never upserts"),
  R3_6(
      "3.6",
      "A fresh claim's generation is its own fence; a takeover keeps the generation of the "
          + "request it resumes, across any number of takeovers; a claim after a release or past "
          + "the window begins a new one.",
      "that the claim keeps the fence of the claim that began the request beside the current "
          + "fence (a column, an attribute), copies it on a takeover and resets it on a fresh "
          + "claim"),
  R3_5(
      "3.5",
      "heartbeatAll renews, in one call, the lease of every record whose fence is current "
          + "and that is IN_FLIGHT, as heartbeat would (it may keep a lease's end that is already "
          + "later), and returns exactly the others (taken over, completed, released, never "
          + "claimed), changing nothing for them.",
      "that the batch carries the same fence and state condition as heartbeat for every "
          + "entry, and that the records reported as refused are exactly those whose condition "
          + "failed (an update count alone cannot tell which)"),

  // 4. time
  R4_1(
      "4.1",
      "A lease held until t is live before t and expired at every instant >= t.",
      "the comparison at the boundary: now >= leaseExpiresAt is expired (not now > "
          + "leaseExpiresAt)"),
  R4_2(
      "4.2",
      "A claim with the same fingerprint of an IN_FLIGHT record whose lease expired takes it "
          + "over: Claimed(takeover = true) with a larger fence, resumeFrom = the last recovery "
          + "point (empty if none), a lease until now + lease; fingerprint and recovery point are "
          + "kept.",
      "that a takeover keeps the recovery point, reports it as resumeFrom, and sets takeover "
          + "= true"),
  R4_3(
      "4.3",
      "A record completed at c is replayed while now < c + replayWindow and counts as absent "
          + "from c + replayWindow on: the next claim is a fresh Claimed (takeover = false, no "
          + "resumeFrom, a larger fence), whatever its fingerprint.",
      "the window comparison (now >= completedAt + window is absent), and that the expired "
          + "record is replaced, with the new request's fingerprint"),
  R4_4(
      "4.4",
      "The replay window is the one of the claim that asks (ClaimRequest.replayWindow), not "
          + "one fixed when the record completed.",
      "that the store does not bake a window (or a TTL derived from one) into the record at "
          + "completion"),
  R4_5(
      "4.5",
      "heartbeat sets the lease to now + lease: a claim after the old expiry but before the "
          + "new one is InFlight.",
      "that heartbeat updates the lease expiry, computed from the heartbeat's now and lease"),
  R4_6(
      "4.6",
      "checkpoint replaces the recovery point and sets the lease to now + lease.",
      "that checkpoint writes both the recovery point and the lease expiry"),
  R4_7(
      "4.7",
      "Times are kept to the millisecond at least: leaseExpiresAt is exactly now + lease and "
          + "completedAt exactly the completing call's now (a SERVER_CLOCK store: the same "
          + "completedAt in lookup and in every replay).",
      "the precision of the stored timestamps (TIMESTAMP(3) or finer, epoch milliseconds, "
          + "not seconds)"),

  // 5. completion and release
  R5_1(
      "5.1",
      "A completed response is replayed byte for byte: status, header names as spelled, "
          + "header order, value order, body bytes (empty, binary, not UTF-8, 64 KiB).",
      "the serialization of StoredResponse: keep headers in an ordered structure and the "
          + "body as bytes, never as re-encoded text"),
  R5_2(
      "5.2",
      "Completion is final: a second complete, or a heartbeat, checkpoint or release after "
          + "completion, throws LeaseLostException, and the first response stays.",
      "that complete, heartbeat, checkpoint and release require state IN_FLIGHT as well as "
          + "the fence"),
  R5_3(
      "5.3",
      "release makes the record absent: lookup is empty, and the next claim, with any "
          + "fingerprint, is a fresh Claimed (takeover = false, no resumeFrom) with a larger "
          + "fence.",
      "that release deletes (or marks absent) the record and drops its recovery point, "
          + "keeping only the fence counter"),
  R5_4(
      "5.4",
      "Replays and mismatches change nothing: they do not extend the replay window (nor does "
          + "InFlight extend a lease, rule 4.1).",
      "that claim does not write when it returns Completed, Mismatch or InFlight"),
  R5_5(
      "5.5",
      "A store keeps a response as large as its maxResponseBytes() (as StoredResponse.size() "
          + "counts it) and replays it byte for byte; complete of a larger one throws "
          + "KeyStoreException (not StoreUnavailableException) and changes nothing, so the owner "
          + "can complete with a smaller response. Checked when the store declares a limit of 64 "
          + "MiB or less.",
      "the limit the store declares against what its storage takes (an item or packet limit, "
          + "a column type, the encoding's overhead), and that the check comes before the write"),

  // 6. scopes
  R6_1(
      "6.1",
      "The same key under two scopes names two independent records.",
      "that the record's identity (primary key, hash key, Redis key) includes the scope"),
  R6_2(
      "6.2",
      "Record identity is exact: keys and scopes are case-sensitive, compared in full "
          + "(255-character keys and scopes, non-ASCII scopes, trailing spaces in scopes), and no "
          + "separator makes (\"a/b\", \"c\") collide with (\"a\", \"b/c\"); _ and % are not "
          + "wildcards.",
      "column collations (binary, case-sensitive, no trailing-space padding), column "
          + "lengths, how scope and key are combined into one string (length-prefix or escape "
          + "them), and LIKE where = was meant"),

  // 7. retention, reaper, findAbandoned
  R7_1(
      "7.1",
      "deleteExpired deletes a COMPLETE record once completedAt + retention <= now, and not "
          + "before (also not when only the window has passed).",
      "the retention comparison for completed records (<=, by completedAt, not by the "
          + "window)"),
  R7_2(
      "7.2",
      "deleteExpired deletes an IN_FLIGHT record once its lease expired at or before now - "
          + "retention, and never one with a live lease or one that expired less than retention "
          + "ago.",
      "the retention comparison for in-flight records (leaseExpiresAt <= now - retention)"),
  R7_3(
      "7.3",
      "deleteExpired deletes at most limit records per call and returns how many; it returns "
          + "limit while at least limit records are eligible, so repeated calls drain them and "
          + "then return 0.",
      "the batch bound (LIMIT, page size) and the returned count"),
  R7_4(
      "7.4",
      "A purged record counts as absent: lookup is empty and the next claim, with any "
          + "fingerprint, is a fresh Claimed (with a larger fence, rule 3.1).",
      "that deleteExpired really deletes, and that claim treats a deleted record as never "
          + "seen"),
  R7_5(
      "7.5",
      "findAbandoned(now, limit) returns the IN_FLIGHT records with leaseExpiresAt <= now, "
          + "oldest lease first, at most limit, as full snapshots (equal to lookup), and changes "
          + "nothing.",
      "the filter (state IN_FLIGHT, leaseExpiresAt <= now), the ORDER BY leaseExpiresAt, and "
          + "the limit"),

  // 8. the server-clock capability
  R8_1(
      "8.1",
      "A store that declares SERVER_CLOCK judges leases, windows and retention by its "
          + "server's clock and ignores the now it is given (a now 400 days ahead takes over "
          + "nothing, replays, finds and deletes nothing early). The other time rules are then "
          + "proven in real time (see below).",
      "that every time comparison uses the server's time (now() in SQL, TIME in Redis), "
          + "including findAbandoned and deleteExpired"),
  R8_2(
      "8.2",
      "A store without SERVER_CLOCK judges time by the now it is given alone, never by the "
          + "system clock (checked with now in 1999 and in 2095).",
      "that the store never calls Instant.now(), System.currentTimeMillis() or the "
          + "database's now(); or declare SERVER_CLOCK"),

  // 9. arguments and hygiene
  R9_1(
      "9.1",
      "A null argument throws NullPointerException and changes nothing.",
      "Objects.requireNonNull on every argument before any write"),
  R9_2(
      "9.2",
      "A non-positive lease, retention or limit throws IllegalArgumentException and changes "
          + "nothing.",
      "the argument checks at the top of heartbeat, checkpoint, findAbandoned and "
          + "deleteExpired"),
  R9_3(
      "9.3",
      "capabilities() is never null, unmodifiable and the same on every call; a store "
          + "declaring TRANSACTIONAL implements TransactionalKeyStore.",
      "that capabilities() returns a constant such as Set.of(...)"),
  R9_4(
      "9.4",
      "A store that cannot reach its storage throws StoreUnavailableException; for a claim "
          + "this means nothing was decided.",
      "the store's own suite: the TCK cannot take a storage down, so untested_9_4_… is "
          + "always skipped with that reason"),

  // 10. transactional stores (TransactionalKeyStoreContract)
  R10_1(
      "10.1",
      "completeWith runs the work, then the completion with the work's response under the "
          + "execution's fence, and commits both together: afterwards the work's writes are "
          + "committed, the record is COMPLETE with that response (completedAt the execution's "
          + "now), completeWith returns it, and a retry replays it.",
      "that the work and the completing write run in one transaction (one connection, one "
          + "client transaction), and that the store commits once, after both"),
  R10_2(
      "10.2",
      "inPhase runs the work, then the checkpoint to the phase's recovery point under the "
          + "execution's fence, now and lease, and commits both together: afterwards the work's "
          + "writes are committed, the record holds the point with a lease until now + lease (rule "
          + "4.6), inPhase returns the work's result, and a takeover's resumeFrom is the last "
          + "point committed.",
      "that the checkpoint is written in the work's transaction (not through "
          + "Execution.checkpoint, which commits on its own), and from the execution's now and "
          + "lease"),
  R10_3(
      "10.3",
      "Work that throws rolls the whole transaction back: none of its writes remain, the "
          + "record is unchanged and still the owner's, and inPhase / completeWith throw the "
          + "work's exception itself, neither wrapped nor replaced.",
      "that the store rolls back as soon as the work throws, skips the fenced write, and "
          + "rethrows that same exception (declare throws Exception instead of wrapping checked "
          + "ones)"),
  R10_4(
      "10.4",
      "A stale fence (another owner took the record over, or it was released, before the "
          + "fenced write) makes inPhase / completeWith throw LeaseLostException and roll the work "
          + "back: none of its writes remain and the record stays as the other owner left it.",
      "that the fenced write runs in the work's transaction, conditional on the fence and "
          + "the IN_FLIGHT state (WHERE fence = ?), and that a write that matched nothing rolls "
          + "the transaction back before the store throws"),
  R10_5(
      "10.5",
      "After a retryable abort (a serialization failure, a deadlock) the store may run the "
          + "work again in a new transaction: only the last run's writes commit, and the last "
          + "run's result is the one returned and stored.",
      "that each attempt starts a new transaction after rolling the previous one back, that "
          + "nothing an earlier attempt wrote or buffered is carried over, and that the result of "
          + "the attempt that committed is the one used"),
  R10_6(
      "10.6",
      "transactionType() is never null and the same on every call, and the work of inPhase "
          + "and completeWith is handed an instance of it.",
      "that transactionType() returns a constant such as Connection.class, and that the "
          + "handle given to the work is of that class"),
  R10_7(
      "10.7",
      "A null argument of inPhase or completeWith is refused with NullPointerException "
          + "before any work runs: nothing is written.",
      "Objects.requireNonNull on every argument at the top of inPhase and completeWith, "
          + "before the transaction opens"),
  R10_8(
      "10.8",
      "A store that implements TransactionalKeyStore declares TRANSACTIONAL in "
          + "capabilities().",
      "that capabilities() includes StoreCapability.TRANSACTIONAL"),

  // 10. one transaction (with ONE_TRANSACTION): claimAndComplete
  R10_9(
      "10.9",
      "claimAndComplete of a record that counts as absent claims it, runs the work once with "
          + "that claim, and commits the claim, the work's writes and the completion with the "
          + "work's response together: until it returns nothing of it is visible (lookup elsewhere "
          + "finds the record as before, the writes are not committed); afterwards the writes are "
          + "committed, the record is COMPLETE with that response under the claim's fence, it "
          + "returns Committed with the fresh claim and the response, and a retry replays it.",
      "that the claim statement runs inside the work's transaction (auto-commit off, one "
          + "connection), that nothing commits before the completion, and that the store commits "
          + "once, after it"),
  R10_10(
      "10.10",
      "Work that throws rolls everything back, the claim included: none of its writes "
          + "remain, the record is as before, the work's exception comes out as it was, and the "
          + "next claimAndComplete claims afresh (no takeover, a larger fence) and runs the work "
          + "as a first attempt. After a retryable abort only the last run's writes commit (tested "
          + "when the subclass can abort).",
      "that the claim is rolled back with the work (never committed on its own, never left "
          + "in flight), and that the same exception is rethrown"),
  R10_11(
      "10.11",
      "A record that does not count as absent is answered as claim would answer it, without "
          + "running the work and without writing: NotRun(Completed) with the stored response, "
          + "NotRun(Mismatch) for another request, NotRun(InFlight) for an in-flight record with a "
          + "live lease.",
      "that the store rolls back and returns the claim's outcome whenever the claim was not "
          + "won, before the work runs"),
  R10_12(
      "10.12",
      "An in-flight record of the same request whose lease expired is taken over when it has "
          + "no recovery point (Committed, claim.takeover, a larger fence; the old owner's fenced "
          + "writes are then refused); with a recovery point nothing is written, the work does not "
          + "run, and the answer is NeedsResumption with that point.",
      "that a takeover claimed inside the transaction is completed like a fresh claim, and "
          + "that a claim whose resumeFrom is present is rolled back instead of run"),
  R10_13(
      "10.13",
      "Of concurrent claimAndComplete calls of one request (8 threads; the winner's "
          + "transaction stays open 200 ms), the work commits once: one returns Committed, every "
          + "other NotRun(Completed) with the winner's byte-identical response or NotRun(InFlight) "
          + "(its wait for the winner's lock ran out), and one run's writes are committed.",
      "that a concurrent claim waits for the uncommitted claim's transaction (a unique index "
          + "entry, a row lock) and then decides on what it committed, never on a snapshot taken "
          + "before it"),

  // 11. listing records
  R11_1(
      "11.1",
      "list returns exactly the records that match the selection at now: ABANDONED the "
          + "IN_FLIGHT records with leaseExpiresAt <= now (WITH_RECOVERY_POINT and "
          + "WITHOUT_RECOVERY_POINT split them by their recovery point), LIVE those with a live "
          + "lease, COMPLETE the completed ones; never a released record; each as lookup returns "
          + "it; and it changes nothing.",
      "the state and lease predicate of the listing (state, leaseExpiresAt against now, the "
          + "recovery point), that the filter is applied before the limit, and that released "
          + "records are left out"),
  R11_2(
      "11.2",
      "Every page holds at most limit records; following next from the first page until it "
          + "is empty returns every matching record once: none repeated, none skipped.",
      "that the cursor names the position after the page's last record (keyset paging on a "
          + "stable order, a scan position, a last evaluated key), and that the next page starts "
          + "strictly after it"),
  R11_3(
      "11.3",
      "A query with a scope lists only that scope's records, whole-name equal (not another "
          + "scope that begins with the same text); without a scope, every scope's.",
      "the scope condition of the listing (an equality on the scope, not a prefix match or a "
          + "pattern)"),
  R11_4(
      "11.4",
      "extendRetention with the record's current fence keeps an IN_FLIGHT or COMPLETE record: "
          + "deleteExpired does not delete it before the instant given, whatever the retention, "
          + "and deletes it by the usual rule from then on; an earlier instant given later does "
          + "not shorten it. It changes nothing lookup, a claim or findAbandoned reads: the "
          + "record, its lease and its replay window stay as they were. With another fence, or "
          + "for an absent record, it throws LeaseLostException and changes nothing (it creates "
          + "no record).",
      "that the extension is kept apart from the completion time and the lease's end (a field "
          + "of its own that only the deletion reads), that the deletion honours it, that the "
          + "write is conditional on the fence, and that it never inserts");

  private final String id;
  private final String text;
  private final String hint;

  Rule(String id, String text, String hint) {
    this.id = id;
    this.text = text;
    this.hint = hint;
  }

  /** The rule's number, for example {@code "2.3"}. */
  public String id() {
    return id;
  }

  /** What the rule requires, as SPEC.md states it. */
  public String text() {
    return text;
  }

  /** What to check in a store that fails the rule. */
  public String hint() {
    return hint;
  }
}
