/**
 * Finds the retry-unsafe endpoints of an API from its OpenAPI 3.0 or 3.1 document: a verdict for
 * every operation ({@link dev.idempotency.openapi.OpenApiAudit}), the integrator docs' Markdown,
 * the servlet filter's route table from the same document ({@link
 * dev.idempotency.openapi.OpenApiRoutes}), and the command line ({@link
 * dev.idempotency.openapi.OpenApiCli}) with the opt-in {@code verify} and {@code gates} against a
 * loopback test server.
 */
// swagger-parser-v3 and swagger-parser-core ship without a module name, so they are automatic
// modules named from their jar files (swagger.parser.v3, swagger.parser.core); no type of theirs
// appears in this module's API, so neither is required transitively.
@SuppressWarnings("requires-automatic")
module dev.idempotency.openapi {
  requires static org.jspecify;
  // EndpointRule and KeyRequirement are in the route table's signatures
  requires transitive dev.idempotency.http;
  requires swagger.parser.v3;
  requires swagger.parser.core;
  requires io.swagger.v3.oas.models;
  // Explicit modules swagger-parser's automatic modules use: an automatic module cannot require
  // them, and the module system resolves an explicit module only when something requires it, so
  // without these a module-path run fails with NoClassDefFoundError (ModulePathIT runs one).
  requires org.slf4j;
  requires org.apache.commons.lang3;
  requires org.apache.commons.io;
  requires com.fasterxml.jackson.datatype.jsr310;
  // the JSON report, the request files of verify and the comparison of JSON answers
  requires com.fasterxml.jackson.databind;
  // which files of a directory are documents, not fragments
  requires com.fasterxml.jackson.dataformat.yaml;
  // verify sends its requests with the JDK's client
  requires java.net.http;

  exports dev.idempotency.openapi;
}
