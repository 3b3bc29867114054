package dev.idempotency.spring.internal;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.core.FingerprintBuilder;
import dev.idempotency.core.IdempotentCall;
import java.lang.reflect.Method;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the advisor does for one {@code @Idempotent} method, worked out once when the method is
 * first matched: its parsed expressions, its fingerprint's purpose and its result's codec.
 */
final class MethodPlan {
  final Method method;
  final IdempotentCall<Object> call;
  final boolean transactional;
  private final Expression key;
  private final @Nullable Expression scope;
  private final String defaultScope;
  private final List<Expression> fingerprint; // empty: every argument
  private final String purpose;
  private final JsonMapper fingerprintMapper;

  MethodPlan(
      Method method,
      IdempotentCall<Object> call,
      boolean transactional,
      Expression key,
      @Nullable Expression scope,
      String defaultScope,
      List<Expression> fingerprint,
      String purpose,
      JsonMapper fingerprintMapper) {
    this.method = method;
    this.call = call;
    this.transactional = transactional;
    this.key = key;
    this.scope = scope;
    this.defaultScope = defaultScope;
    this.fingerprint = List.copyOf(fingerprint);
    this.purpose = purpose;
    this.fingerprintMapper = fingerprintMapper;
  }

  /**
   * The scope and key of a call.
   *
   * @throws IllegalArgumentException if an expression gives null, or text that is no valid scope or
   *     key (the message names the method and the expression)
   */
  RecordId recordId(EvaluationContext context) {
    String scopeText = scope == null ? defaultScope : text(scope, context, "scope");
    String keyText = text(key, context, "key");
    try {
      return RecordId.of(scopeText, keyText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "@Idempotent on " + MethodPlans.describe(method) + ": " + e.getMessage(), e);
    }
  }

  /** The fingerprint of a call: the purpose, then each named value (or argument) as JSON. */
  Fingerprint fingerprint(EvaluationContext context, @Nullable Object[] arguments) {
    FingerprintBuilder builder = FingerprintBuilder.forPurpose(purpose);
    if (fingerprint.isEmpty()) {
      for (int i = 0; i < arguments.length; i++) {
        add(builder, arguments[i], "argument " + i);
      }
    } else {
      for (Expression field : fingerprint) {
        add(builder, field.getValue(context), field.getExpressionString());
      }
    }
    return builder.build();
  }

  private void add(FingerprintBuilder builder, @Nullable Object value, String what) {
    if (value == null) {
      builder.addAbsent();
      return;
    }
    try {
      builder.add(fingerprintMapper.writeValueAsBytes(value));
    } catch (JacksonException e) {
      throw new IllegalArgumentException(
          "@Idempotent on "
              + MethodPlans.describe(method)
              + ": the fingerprint's "
              + what
              + " (a "
              + value.getClass().getName()
              + ") cannot be written as JSON; name the values that make the request with"
              + " @Idempotent(fingerprint = ...): "
              + e.getOriginalMessage(),
          e);
    }
  }

  private String text(Expression expression, EvaluationContext context, String what) {
    String value = expression.getValue(context, String.class);
    if (value == null) {
      throw new IllegalArgumentException(
          "@Idempotent on "
              + MethodPlans.describe(method)
              + ": the "
              + what
              + " expression "
              + expression.getExpressionString()
              + " gave null");
    }
    return value;
  }
}
