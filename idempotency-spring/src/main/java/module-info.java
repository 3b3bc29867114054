/**
 * Spring Framework 7 without Spring Boot: {@code @Idempotent} methods through an {@code
 * IdempotencyEngine}, and the client half as a {@code RestClient} interceptor.
 */
// Spring's jars are automatic modules (spring.aop, …); the advisor and the interceptor are Spring
// types, so those are required transitively, which javac warns about for any automatic module.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
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

  exports dev.idempotency.spring;
}
