/**
 * Spring Boot auto-configuration for the idempotency library: the filter, the engine, the store,
 * the scheduled reaper and completer, the meters and the health indicator.
 */
// Spring and Micrometer ship as automatic modules; the auto-configuration's public beans and
// properties are their types, so they are required transitively, which javac warns about.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module dev.idempotency.spring.boot.autoconfigure {
  requires static org.jspecify;
  requires transitive dev.idempotency.servlet;
  requires transitive spring.boot.autoconfigure;
  requires transitive spring.boot;
  requires transitive spring.context;
  requires transitive spring.beans;
  requires transitive spring.core;
  requires transitive java.sql;
  // optional parts, each behind a condition that looks for its classes first; transitive, as the
  // configurations name their types
  requires static transitive dev.idempotency.store.jdbc;
  requires static transitive dev.idempotency.micrometer;
  requires static transitive dev.idempotency.spring;
  requires static transitive dev.idempotency.openapi;
  requires static transitive micrometer.core;
  requires static transitive spring.boot.health;
  requires static transitive spring.boot.actuator;
  requires static transitive spring.boot.actuator.autoconfigure;
  requires static spring.boot.sql;
  // the application's JPA EntityManagerFactory, which joins the store's transaction when present
  requires static jakarta.persistence;
  requires static spring.orm;

  exports dev.idempotency.spring.boot.autoconfigure;

  // Spring instantiates the configurations and binds the properties reflectively
  opens dev.idempotency.spring.boot.autoconfigure to
      spring.core,
      spring.beans,
      spring.context,
      spring.boot;
}
