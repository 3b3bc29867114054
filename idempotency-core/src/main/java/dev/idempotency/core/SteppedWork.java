package dev.idempotency.core;

import java.util.Objects;

/** {@link Work#stepped}'s work. */
record SteppedWork<R>(Operation<R> operation) implements Work<R> {
  SteppedWork {
    Objects.requireNonNull(operation, "operation");
  }
}
