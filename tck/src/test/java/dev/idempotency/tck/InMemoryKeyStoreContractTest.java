package dev.idempotency.tck;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;

/** The reference store passes the whole contract: the TCK's own proof that its rules can be met. */
class InMemoryKeyStoreContractTest extends KeyStoreContract {
  @Override
  protected KeyStore newStore(TckContext context) {
    return new InMemoryKeyStore();
  }
}
