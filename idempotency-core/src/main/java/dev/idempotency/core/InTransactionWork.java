package dev.idempotency.core;

import dev.idempotency.TransactionalWork;
import java.util.Objects;

/** {@link Work#inOneTransaction}'s work. */
record InTransactionWork<T, R>(Class<T> transactionType, TransactionalWork<T, R> work)
    implements Work<R> {
  InTransactionWork {
    Objects.requireNonNull(transactionType, "transactionType");
    Objects.requireNonNull(work, "work");
  }

  /** The same writes, with their result turned into another. */
  <S> InTransactionWork<T, S> map(ResultMapping<R, S> mapping) {
    return new InTransactionWork<>(transactionType, tx -> mapping.apply(work.run(tx)));
  }

  /** A mapping of a result that may throw, as the work may. */
  @FunctionalInterface
  interface ResultMapping<R, S> {
    S apply(R result) throws Exception;
  }
}
