/**
 * Spring Framework 7 without Spring Boot: {@code @Idempotent} methods through an {@code
 * IdempotencyEngine}, and the client half as a {@code RestClient} interceptor.
 */
// Spring's jars are automatic modules (spring.aop, …); the advisor and the interceptor are Spring
// types, so those are required transitively, which javac warns about for any automatic module.
// "module": the qualified export names the Spring Boot module, which this build does not see.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic", "module"})
module dev.idempotency.spring {
  requires static org.jspecify;
  requires transitive dev.idempotency.core;
  requires transitive dev.idempotency.client;
  // IdempotentMethods is an Advisor (spring.aop), ordered (spring.core), built with a JsonMapper
  requires transitive spring.aop;
  requires transitive spring.core;
  requires transitive tools.jackson.databind;
  // transactionalDataSource(DataSource)
  requires transitive java.sql;
  requires spring.beans;
  requires spring.context;
  requires spring.expression;
  // optional at run time: transactional methods (spring-jdbc, spring-tx), the RestClient
  // interceptor
  // (spring-web), whose types an application without them never loads
  requires static spring.jdbc;
  requires static spring.tx;
  requires static transitive spring.web;
  // optional at run time: transactional methods in JPA's transaction (the builder takes a JPA
  // EntityManagerFactory; a Hibernate Session bound through spring-orm)
  requires static transitive jakarta.persistence;
  requires static org.hibernate.orm.core;
  requires static spring.orm;

  exports dev.idempotency.spring;
  // the binding of the store's transaction as Spring's, which the Spring Boot filter applies to
  // requests run in one transaction; not API
  exports dev.idempotency.spring.internal to
      dev.idempotency.spring.boot.autoconfigure;
}
