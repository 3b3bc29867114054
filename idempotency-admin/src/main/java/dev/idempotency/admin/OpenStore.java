package dev.idempotency.admin;

import dev.idempotency.spi.KeyStore;

/**
 * A store the command line opened from its options, with what it opened for it (a connection, a
 * client and its threads): closing it closes those, so that the tool, or a test that runs it in its
 * own JVM, leaves nothing running.
 *
 * @param keyStore the store
 * @param closer what closes the connections and clients opened for it
 */
record OpenStore(KeyStore keyStore, Runnable closer) implements AutoCloseable {
  @Override
  public void close() {
    closer.run();
  }
}
