package dev.idempotency.store.redis.internal;

import dev.idempotency.spi.KeyStoreException;
import dev.idempotency.spi.StoreUnavailableException;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Every command the store sends, bounded by its command timeout, with Lettuce's failures mapped to
 * the SPI's exceptions: unreachable, slow, loading, read-only or out of memory is {@link
 * StoreUnavailableException}; anything else Redis refuses is {@link KeyStoreException}.
 *
 * <p>A command that times out is cancelled: Lettuce then never writes it if it still waits in the
 * connection's queue (a reconnecting connection queues commands), so a late claim cannot land after
 * the caller was told it failed. One already written may still run on the server; for a claim that
 * leaves a record in flight under a lease nobody holds, which a retry takes over once the lease
 * ended. Thread-safe: Lettuce multiplexes the one connection over every thread.
 */
public final class RedisCalls {
  /** Replies Redis gives while it cannot serve writes: the call may succeed later. */
  private static final List<String> UNAVAILABLE =
      List.of(
          "LOADING",
          "BUSY",
          "MASTERDOWN",
          "READONLY",
          "CLUSTERDOWN",
          "TRYAGAIN",
          "OOM",
          "NOREPLICAS",
          "MOVED",
          "ASK",
          "NOAUTH");

  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final long timeoutNanos;
  private final String timeoutText;

  /**
   * @param commands the user's connection's asynchronous commands
   * @param timeout how long any one command may take
   */
  public RedisCalls(RedisClusterAsyncCommands<byte[], byte[]> commands, Duration timeout) {
    this.commands = commands;
    this.timeoutNanos = timeout.toNanos();
    this.timeoutText = timeout.toString();
  }

  /** Sends a script without waiting: {@link #awaitScript} takes its reply. */
  public PendingScript send(Script script, byte[][] keys, byte[]... args) {
    return new PendingScript(script, keys, args, dispatch(() -> evalsha(script, keys, args)));
  }

  /** Runs a script and returns its reply, an array. */
  public List<Object> script(String what, Script script, byte[][] keys, byte[]... args) {
    return awaitScript(what, send(script, keys, args));
  }

  /**
   * The reply of a script sent with {@link #send}; on {@code NOSCRIPT} sends its body and waits for
   * that.
   */
  public List<Object> awaitScript(String what, PendingScript pending) {
    try {
      return await(what, pending.future());
    } catch (NoScript e) {
      Script s = pending.script();
      RedisFuture<List<Object>> eval =
          dispatch(
              () ->
                  commands.eval(s.body(), ScriptOutputType.MULTI, pending.keys(), pending.args()));
      return await(what, eval);
    }
  }

  /** Runs any other command, bounded and mapped the same way. */
  public <T> T call(String what, Supplier<RedisFuture<T>> command) {
    return await(what, dispatch(command));
  }

  /**
   * The record hash's {@code fields} at {@code key} ({@code HMGET}, one atomic read), null where a
   * field is absent.
   */
  public List<byte @Nullable []> fields(String what, byte[] key, List<String> fields) {
    byte[][] names = new byte[fields.size()][];
    for (int i = 0; i < names.length; i++) {
      names[i] = fields.get(i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
    List<KeyValue<byte[], byte[]>> values = call(what, () -> commands.hmget(key, names));
    List<byte @Nullable []> out = new ArrayList<>(values.size());
    for (KeyValue<byte[], byte[]> kv : values) {
      out.add(kv.hasValue() ? kv.getValue() : null);
    }
    return out;
  }

  /**
   * {@code WAIT replicas timeout}: how many replicas acknowledged every write this connection sent
   * so far, waiting up to {@code timeout} for {@code replicas} of them.
   */
  public long waitForReplicas(String what, int replicas, Duration timeout) {
    RedisFuture<Long> acked =
        dispatch(() -> commands.waitForReplication(replicas, timeout.toMillis()));
    return awaitFor(what, acked, timeoutNanos + timeout.toNanos());
  }

  private RedisFuture<List<Object>> evalsha(Script script, byte[][] keys, byte[][] args) {
    return commands.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
  }

  private <T> RedisFuture<T> dispatch(Supplier<RedisFuture<T>> command) {
    try {
      return command.get();
    } catch (RedisException e) {
      // a connection that rejects commands while disconnected throws as it is asked
      throw new StoreUnavailableException("Redis refused the command: " + e.getMessage(), e);
    }
  }

  private <T> T await(String what, RedisFuture<T> future) {
    return awaitFor(what, future, timeoutNanos);
  }

  private <T> T awaitFor(String what, RedisFuture<T> future, long nanos) {
    try {
      T value = future.get(nanos, TimeUnit.NANOSECONDS);
      if (value == null) {
        throw new KeyStoreException("Redis answered " + what + " with nothing");
      }
      return value;
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new StoreUnavailableException(
          "Redis did not answer " + what + " within " + timeoutText + " (the command timeout)", e);
    } catch (InterruptedException e) {
      future.cancel(false);
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while waiting for Redis: " + what, e);
    } catch (ExecutionException e) {
      throw map(what, e.getCause() != null ? e.getCause() : e);
    }
  }

  private static RuntimeException map(String what, Throwable cause) {
    if (cause instanceof RedisNoScriptException) {
      return new NoScript();
    }
    if (cause instanceof RedisCommandExecutionException refused) {
      String message = String.valueOf(refused.getMessage());
      String code = message.split(" ", 2)[0].toUpperCase(Locale.ROOT);
      if (UNAVAILABLE.contains(code)) {
        return new StoreUnavailableException(
            "Redis cannot serve " + what + " now: " + message, refused);
      }
      return new KeyStoreException(
          "Redis refused "
              + what
              + ": "
              + message
              + " (a key under the store's prefix that another application wrote, or a server"
              + " older than Redis 7?)",
          refused);
    }
    // connection refused or lost, the client's own timeout, a closed connection
    return new StoreUnavailableException(
        "Redis could not be reached for " + what + ": " + cause, cause);
  }

  /** {@code NOSCRIPT}: the server does not have the script (yet). */
  private static final class NoScript extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoScript() {
      super(null, null, false, false);
    }
  }

  /**
   * A script on its way: what to send again as {@code EVAL} when the server answers {@code
   * NOSCRIPT}. Holds its arrays as given; nothing changes them after sending.
   */
  public static final class PendingScript {
    private final Script script;
    private final byte[][] keys;
    private final byte[][] args;
    private final RedisFuture<List<Object>> future;

    PendingScript(Script script, byte[][] keys, byte[][] args, RedisFuture<List<Object>> future) {
      this.script = script;
      this.keys = keys;
      this.args = args;
      this.future = future;
    }

    Script script() {
      return script;
    }

    byte[][] keys() {
      return keys;
    }

    byte[][] args() {
      return args;
    }

    RedisFuture<List<Object>> future() {
      return future;
    }
  }

  /** The reply's element {@code i} as a number. */
  public static long number(List<Object> reply, int i) {
    Object o = reply.get(i);
    if (o instanceof Long l) {
      return l;
    }
    throw corrupt(reply, i);
  }

  /** The reply's element {@code i} as bytes. */
  public static byte[] bytes(List<Object> reply, int i) {
    Object o = reply.get(i);
    if (o instanceof byte[] b) {
      return b;
    }
    throw corrupt(reply, i);
  }

  /** The reply's element {@code i} as ASCII text. */
  public static String text(List<Object> reply, int i) {
    return new String(bytes(reply, i), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** An element of a reply that must be an array. */
  @SuppressWarnings("unchecked") // Lettuce's MULTI output: nested arrays are List<Object>
  public static List<Object> list(Object element) {
    if (element instanceof List<?>) {
      return (List<Object>) element;
    }
    throw new KeyStoreException(
        "unexpected reply from the Redis store's script: "
            + element.getClass().getSimpleName()
            + " where an array was due; is another application writing under the store's key"
            + " prefix?");
  }

  private static KeyStoreException corrupt(List<Object> reply, int i) {
    @Nullable Object o = i < reply.size() ? reply.get(i) : null;
    return new KeyStoreException(
        "unexpected reply from the Redis store's script: element "
            + i
            + " is "
            + (o == null ? "missing" : o.getClass().getSimpleName())
            + " in a reply of "
            + reply.size()
            + " elements; is another application writing under the store's key prefix?");
  }
}
