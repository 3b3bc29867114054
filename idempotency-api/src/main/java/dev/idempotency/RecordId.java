package dev.idempotency;

import java.util.Objects;

/**
 * The identity of one idempotency record: a key within its scope. Two requests name the same record
 * exactly when their scopes and keys are both equal; the same key under two scopes names two
 * unrelated records.
 *
 * @param scope the caller's scope
 * @param key the client-minted key
 */
public record RecordId(Scope scope, IdempotencyKey key) {
  /**
   * @throws NullPointerException if an argument is null
   */
  public RecordId {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
  }

  /** Shorthand for {@code new RecordId(Scope.of(scope), IdempotencyKey.of(key))}. */
  public static RecordId of(String scope, String key) {
    return new RecordId(Scope.of(scope), IdempotencyKey.of(key));
  }

  @Override
  public String toString() {
    return scope + "/" + key;
  }
}
