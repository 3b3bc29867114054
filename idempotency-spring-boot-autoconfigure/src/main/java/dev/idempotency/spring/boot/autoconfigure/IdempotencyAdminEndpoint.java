package dev.idempotency.spring.boot.autoconfigure;

import dev.idempotency.RecordId;
import dev.idempotency.Scope;
import dev.idempotency.core.KeyStoreAdmin;
import dev.idempotency.core.RecordView;
import dev.idempotency.spi.PageCursor;
import dev.idempotency.spi.RecordPage;
import dev.idempotency.spi.RecordQuery;
import dev.idempotency.spi.RecordSelection;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code idempotency} Actuator endpoint over {@link KeyStoreAdmin}: list the records of a
 * selection, show one record (never its stored body), and, when {@code
 * idempotency.admin-endpoint.writes-enabled=true}, release, redrive or extend one. Rows are plain
 * maps of strings and numbers, so that the JSON does not depend on how the application's mapper
 * writes the library's types.
 */
@Endpoint(id = "idempotency")
public class IdempotencyAdminEndpoint {
  static final int DEFAULT_LIMIT = 50;
  static final String WRITES_OFF =
      "write operations are off: set idempotency.admin-endpoint.writes-enabled=true"
          + " (behind Spring Security) to release, redrive or extend records";

  private final KeyStoreAdmin admin;
  private final boolean writesEnabled;

  /** An endpoint over {@code admin}; writes act only when {@code writesEnabled}. */
  public IdempotencyAdminEndpoint(KeyStoreAdmin admin, boolean writesEnabled) {
    this.admin = Objects.requireNonNull(admin, "admin");
    this.writesEnabled = writesEnabled;
  }

  /**
   * One page of records: {@code GET /actuator/idempotency?selection=ABANDONED&scope=…&limit=…
   * &after=…}.
   */
  @ReadOperation
  public Map<String, Object> list(
      @Nullable String selection,
      @Nullable String scope,
      @Nullable Integer limit,
      @Nullable String after) {
    RecordSelection chosen =
        selection == null
            ? RecordSelection.ABANDONED
            : RecordSelection.valueOf(selection.trim().toUpperCase(Locale.ROOT));
    RecordQuery query = admin.query(chosen, limit == null ? DEFAULT_LIMIT : limit);
    if (scope != null) {
      query = query.inScope(Scope.of(scope));
    }
    if (after != null) {
      query = query.after(new PageCursor(after));
    }
    RecordPage page = admin.list(query);
    List<Map<String, Object>> rows = new ArrayList<>();
    page.records().forEach(record -> rows.add(row(RecordView.of(record))));
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("selection", chosen.name());
    answer.put("records", rows);
    page.next().ifPresent(cursor -> answer.put("next", cursor.value()));
    return answer;
  }

  /** One record without its body: {@code GET /actuator/idempotency/{scope}/{key}}; 404 if none. */
  @ReadOperation
  public @Nullable Map<String, Object> show(@Selector String scope, @Selector String key) {
    return admin.show(RecordId.of(scope, key)).map(IdempotencyAdminEndpoint::row).orElse(null);
  }

  /**
   * Settles one record: {@code POST /actuator/idempotency/{scope}/{key}} with {@code
   * {"action":"release","reason":"…"}}, {@code {"action":"redrive"}} or {@code
   * {"action":"extend","keepFor":"P7D","reason":"…"}} ({@code keepUntil}, an ISO-8601 instant, in
   * place of {@code keepFor}, an ISO-8601 duration from now). One operation for all, as Actuator
   * maps one write operation to a path.
   */
  @WriteOperation
  public Map<String, Object> settle(
      @Selector String scope,
      @Selector String key,
      String action,
      @Nullable String reason,
      @Nullable String keepUntil,
      @Nullable String keepFor) {
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("scope", scope);
    answer.put("key", key);
    if (!writesEnabled) {
      answer.put("status", "REFUSED");
      answer.put("detail", WRITES_OFF);
      return answer;
    }
    RecordId id = RecordId.of(scope, key);
    KeyStoreAdmin.Result result;
    try {
      result =
          switch (action.trim().toLowerCase(Locale.ROOT)) {
            case "release" ->
                admin.release(
                    id, reason == null ? "released through the Actuator endpoint" : reason);
            case "redrive" -> admin.redrive(id);
            case "extend" -> extend(id, keepUntil, keepFor, reason);
            default ->
                throw new IllegalArgumentException(
                    "action must be release, redrive or extend, not " + action);
          };
    } catch (IllegalArgumentException e) {
      // a request the caller can correct (an action, a reason, an instant): Actuator answers 400
      // for this exception, and 500 for any other
      String why = Objects.requireNonNullElse(e.getMessage(), "invalid request");
      throw new InvalidEndpointRequestException(why, why);
    }
    answer.put("status", result.status().name());
    answer.put("detail", result.detail());
    return answer;
  }

  /** The extension asked for: exactly one of an instant and a duration from now. */
  private KeyStoreAdmin.Result extend(
      RecordId id, @Nullable String keepUntil, @Nullable String keepFor, @Nullable String reason) {
    if ((keepUntil == null) == (keepFor == null)) {
      throw new IllegalArgumentException(
          "extend needs one of keepUntil (an ISO-8601 instant, 2031-05-24T09:00:00Z) and keepFor"
              + " (an ISO-8601 duration, P7D)");
    }
    String why = reason == null ? "extended through the Actuator endpoint" : reason;
    try {
      return keepUntil != null
          ? admin.extend(id, Instant.parse(keepUntil.trim()), why)
          : admin.extend(id, Duration.parse(Objects.requireNonNull(keepFor).trim()), why);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "keepUntil must be an ISO-8601 instant and keepFor an ISO-8601 duration: "
              + e.getMessage(),
          e);
    }
  }

  static Map<String, Object> row(RecordView view) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("scope", view.id().scope().value());
    row.put("key", view.id().key().value());
    row.put("state", view.state().name());
    row.put("fence", view.fence().value());
    row.put("fingerprint", view.fingerprint().hex());
    view.leaseExpiresAt().ifPresent(at -> row.put("leaseExpiresAt", at.toString()));
    view.recoveryPoint().ifPresent(point -> row.put("recoveryPoint", point.name()));
    view.completedAt().ifPresent(at -> row.put("completedAt", at.toString()));
    view.status().ifPresent(status -> row.put("status", status));
    view.responseBytes().ifPresent(bytes -> row.put("responseBytes", bytes));
    view.notStoredReason().ifPresent(reason -> row.put("notStoredReason", reason));
    return row;
  }
}
