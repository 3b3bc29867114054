package dev.idempotency.spi;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a {@link KeyStore#list(RecordQuery) listing}.
 *
 * @param records at most the query's limit of records, each a full snapshot as {@link
 *     KeyStore#lookup} returns it (the stored response included: show a person {@code status} and
 *     size, not the body, unless asked)
 * @param next where the next page starts; empty when the listing is done. A store may return a
 *     cursor whose page is empty.
 */
public record RecordPage(List<RecordSnapshot> records, Optional<PageCursor> next) {
  /**
   * Copies {@code records}.
   *
   * @throws NullPointerException if an argument or a record is null
   */
  public RecordPage {
    records = List.copyOf(records);
    Objects.requireNonNull(next, "next");
  }
}
