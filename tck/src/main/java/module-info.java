/**
 * The technology compatibility kit for key stores: abstract JUnit 5 contract tests every {@code
 * dev.idempotency.spi.KeyStore} must pass. A store's tests depend on this module (test scope) and
 * extend {@code dev.idempotency.tck.KeyStoreContract}.
 *
 * <p>JUnit's API is required transitively because a subclass of the contract is itself a JUnit test
 * class. The contract package is opened to JUnit so that it can run the package-private nested test
 * classes and methods reflectively when the TCK runs on the module path.
 */
module dev.idempotency.tck {
  requires static org.jspecify;
  requires transitive dev.idempotency.api;
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;

  exports dev.idempotency.tck;

  opens dev.idempotency.tck to
      org.junit.platform.commons;
}
