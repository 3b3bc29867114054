package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.http.KeyRequirement;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One rule of {@code idempotency.endpoints}: which requests need a key. An element of {@link
 * IdempotencyProperties#getEndpoints()}.
 */
public class IdempotencyEndpointProperties {
  /** The defaults. */
  public IdempotencyEndpointProperties() {}

  /** Path patterns: literal segments, * for one segment, a trailing ** for any rest. */
  private List<String> paths = new ArrayList<>(List.of("/**"));

  /** The methods the rule guards; never GET, HEAD, OPTIONS or TRACE. */
  private List<String> methods = new ArrayList<>(List.of("POST", "PATCH"));

  /** REQUIRED: no key is 400; OPTIONAL: no key, no idempotency. */
  private KeyRequirement requirement = KeyRequirement.REQUIRED;

  /**
   * Whether each request runs in one transaction of the store (the claim, the handler's statements
   * and the stored response in one commit), which JdbcTemplate, JPA (Hibernate) and @Transactional
   * join. Unset: one transaction on the JDBC store, stepped on the others. false: stepped (a claim
   * and a completion of their own, with recovery points), for handlers that call anything outside
   * the database, such as a payment provider or a queue. true: one transaction, or start-up fails
   * on a store that cannot.
   */
  private @Nullable Boolean inOneTransaction;

  public List<String> getPaths() {
    return paths;
  }

  public void setPaths(List<String> paths) {
    this.paths = paths;
  }

  public List<String> getMethods() {
    return methods;
  }

  public void setMethods(List<String> methods) {
    this.methods = methods;
  }

  public KeyRequirement getRequirement() {
    return requirement;
  }

  public void setRequirement(KeyRequirement requirement) {
    this.requirement = requirement;
  }

  public @Nullable Boolean getInOneTransaction() {
    return inOneTransaction;
  }

  public void setInOneTransaction(@Nullable Boolean inOneTransaction) {
    this.inOneTransaction = inOneTransaction;
  }
}
