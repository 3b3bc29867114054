package dev.idempotency.tck;

import dev.idempotency.spi.KeyStore;
import dev.idempotency.tck.mutants.MapKeyStore;

/**
 * The self-test's control: the plain store every mutant is derived from passes the whole contract,
 * through distinct peer instances, so each mutant fails because of its one mutation and nothing
 * else.
 */
class MapKeyStoreContractTest extends KeyStoreContract {
  @Override
  protected KeyStore newStore(TckContext context) {
    return new MapKeyStore();
  }

  @Override
  protected KeyStore newPeer(KeyStore store, TckContext context) {
    return ((MapKeyStore) store).peer();
  }
}
