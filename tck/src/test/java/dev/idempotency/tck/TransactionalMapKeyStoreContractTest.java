package dev.idempotency.tck;

import dev.idempotency.spi.TransactionalKeyStore;
import dev.idempotency.tck.mutants.TransactionalMapKeyStore;
import dev.idempotency.tck.mutants.TransactionalMapKeyStore.Tx;
import java.util.List;

/**
 * The transactional self-test's control: the plain transactional store every transactional mutant
 * is derived from passes the whole transactional contract, rule 10.5 included, so each mutant fails
 * because of its one mutation and nothing else. The mutants' contracts in {@link
 * TransactionalTckSelfTest} extend it.
 */
class TransactionalMapKeyStoreContractTest extends TransactionalKeyStoreContract<Tx> {
  private TransactionalMapKeyStore store;

  /** The store under test; the mutants' contracts return theirs. */
  TransactionalMapKeyStore create() {
    return new TransactionalMapKeyStore();
  }

  @Override
  protected TransactionalKeyStore<Tx> newStore(TckContext context) {
    store = create();
    return store;
  }

  @Override
  protected void write(Tx tx, String marker) {
    tx.write(marker);
  }

  @Override
  protected List<String> committedMarkers() {
    return store.committedMarkers();
  }

  @Override
  protected boolean canAbortRetryably() {
    return true;
  }

  @Override
  protected void abortRetryably(Tx tx) {
    tx.abortRetryably();
  }
}
