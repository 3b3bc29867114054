package dev.idempotency.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method at most once per key within the replay window, for work that is not an
 * HTTP request (a message or webhook consumer, a job): the first call with a key runs the method
 * and stores its return value; a later call with the same key and the same arguments returns the
 * stored value without running it.
 *
 * <pre>{@code
 * @Idempotent(key = "'invoice-' + #event.id", fingerprint = {"#event.orderId", "#event.amountCents"})
 * public Invoice onOrderPaid(OrderPaid event) { ... }
 * }</pre>
 *
 * <p>Applied by the advisor {@link IdempotentMethods} builds; a method of a bean without that
 * advisor in its context runs unguarded. What the call returns or throws:
 *
 * <ul>
 *   <li>run now: the method's return value (stored as JSON);
 *   <li>run before: the stored value, decoded as the class the method returned (its generic return
 *       type resolved against the bean's class; a subclass of it kept by name, and trusted only as
 *       a subclass);
 *   <li>the same key with other arguments: {@link
 *       dev.idempotency.core.IdempotencyKeyReusedException};
 *   <li>the same key still running elsewhere, after the engine's {@link
 *       dev.idempotency.core.InFlightPolicy} waited: {@link
 *       dev.idempotency.core.IdempotencyKeyInFlightException};
 *   <li>the store unreachable: its {@link dev.idempotency.StoreUnavailableException}, the method
 *       not run;
 *   <li>the method threw: the same exception, checked ones included; the key is released (a retry
 *       runs the method anew) unless a recovery point had committed.
 * </ul>
 *
 * <p>Expressions are SpEL over the arguments, as {@code @Cacheable}'s: {@code #event} by name (the
 * code compiled with {@code -parameters}, as Spring Boot's build plugins do), {@code #p0} or {@code
 * #a0} by position, {@code #root} for the bean. They are parsed, and every variable they name
 * checked against the method's parameters, when the advisor first matches the method (as the
 * context starts): a typo fails the start-up, not the first message.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {

  /**
   * The idempotency key: a SpEL expression over the arguments, evaluated to text of 1 to 255
   * printable ASCII characters, the rule of the HTTP header. Derive it from the business event
   * ({@code "'invoice-' + #event.id"}) so that a redelivery yields the same key.
   *
   * @return the key expression
   */
  String key();

  /**
   * The scope the key belongs to: a SpEL expression over the arguments (an account or tenant id:
   * {@code "#event.accountId"}), or empty for the advisor's default scope ({@link
   * IdempotentMethods.Builder#defaultScope}). The same key in two scopes names two unrelated calls.
   *
   * @return the scope expression, or empty
   */
  String scope() default "";

  /**
   * What makes two calls with one key the same request: SpEL expressions over the arguments, each
   * serialized as JSON (map entries and properties sorted) into the fingerprint; empty means every
   * argument. Name the fields of the request's meaning and leave out what legitimately differs
   * between deliveries (a delivery timestamp, a trace id), which would otherwise make a redelivery
   * a mismatch.
   *
   * @return the fingerprint expressions, or empty for every argument
   */
  String[] fingerprint() default {};

  /**
   * The fingerprint's purpose: names the kind of request and the layout of its fields, such as
   * {@code "invoice/1"}; empty means the method's signature. Name one to keep the fingerprints of
   * stored records valid when the method is renamed or moved, and change its version when the
   * fingerprint's fields change.
   *
   * @return the purpose, or empty for the method's signature
   */
  String purpose() default "";

  /**
   * Whether the method's JDBC writes commit in one transaction with its stored result: the store's
   * {@code Connection} is bound as Spring's transactional connection of {@link
   * IdempotentMethods.Builder#transactionalDataSource the DataSource} while the method runs, so a
   * {@code JdbcTemplate} (or a {@code @Transactional} method it calls) joins it. A method that
   * throws leaves neither its rows nor the key. Needs a {@code JdbcKeyStore} on that DataSource.
   *
   * @return whether the method runs in the store's transaction
   */
  boolean transactional() default false;
}
