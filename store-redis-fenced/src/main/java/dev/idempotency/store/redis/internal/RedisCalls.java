package dev.idempotency.store.redis.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Every command the store sends, with Lettuce's failures mapped to the SPI's exceptions:
 * unreachable, slow, loading, read-only or out of memory is {@link StoreUnavailableException};
 * anything else Redis refuses is {@link KeyStoreException}.
 *
 * <p>Each call of the store has one budget, the command timeout, for everything it waits for: a
 * script and its {@code EVAL} after {@code NOSCRIPT} together, or a batch of scripts sent at once.
 * Waiting for replicas has a budget of its own, of the same length, and a connection of its own
 * ({@link #awaitReplicas}).
 *
 * <p>A command that times out is cancelled: Lettuce then never writes it if it still waits in the
 * connection's queue (a reconnecting connection queues commands), so a late claim cannot land after
 * the caller was told it failed. One already written may still run on the server; for a claim that
 * leaves a record in flight under a lease nobody holds, which a retry takes over once the lease
 * ended. One written and not answered when the connection drops is written again after the
 * reconnect: the scripts recognize their own nonce and answer as the first time. Thread-safe:
 * Lettuce multiplexes the one connection over every thread.
 */
public final class RedisCalls {
  /** How long a replication marker stays: it only needs to reach the replicas. */
  private static final long MARKER_MILLIS = 60_000;

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
          "NOAUTH",
          "MISCONF", // RDB or AOF writes failing on disk: Redis refuses writes until they work
          // again
          "UNBLOCKED"); // a blocked command ended by CLIENT UNBLOCK ... ERROR or a failover

  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final @Nullable RedisClusterAsyncCommands<byte[], byte[]> replicaAcks;
  private final long timeoutNanos;
  private final String timeoutText;

  /**
   * @param commands the user's connection's asynchronous commands
   * @param replicaAcks the asynchronous commands of the connection {@link #awaitReplicas} blocks,
   *     or null without replica acknowledgement
   * @param timeout how long one call may wait for Redis
   */
  public RedisCalls(
      RedisClusterAsyncCommands<byte[], byte[]> commands,
      @Nullable RedisClusterAsyncCommands<byte[], byte[]> replicaAcks,
      Duration timeout) {
    this.commands = commands;
    this.replicaAcks = replicaAcks;
    this.timeoutNanos = timeout.toNanos();
    this.timeoutText = timeout.toString();
  }

  /** A call's budget, starting now: what every wait of the call takes from. */
  public long deadline() {
    return System.nanoTime() + timeoutNanos;
  }

  /** Sends a script without waiting: {@link #awaitScript} takes its reply. */
  public PendingScript send(Script script, byte[][] keys, byte[]... args) {
    return new PendingScript(script, keys, args, dispatch(() -> evalsha(script, keys, args)));
  }

  /** Runs a script within a budget of its own and returns its reply, an array. */
  public List<Object> script(String what, Script script, byte[][] keys, byte[]... args) {
    return awaitScript(what, send(script, keys, args), deadline());
  }

  /**
   * The reply of a script sent with {@link #send}, by {@code deadline} ({@link #deadline()}); on
   * {@code NOSCRIPT} sends its body and waits for that, within the same deadline.
   */
  public List<Object> awaitScript(String what, PendingScript pending, long deadline) {
    try {
      return await(what, pending.future(), deadline);
    } catch (NoScript e) {
      Script s = pending.script();
      RedisFuture<List<Object>> eval =
          dispatch(
              () ->
                  commands.eval(s.body(), ScriptOutputType.MULTI, pending.keys(), pending.args()));
      return await(what, eval, deadline);
    }
  }

  /**
   * The replies of scripts sent together ({@link #send}), each taken as it arrives, all by {@code
   * deadline}: a script that does not answer (its node down) delays no other, and one answered
   * {@code NOSCRIPT} is sent again as {@code EVAL} at once, within the same deadline. Each element
   * is the script's reply, or what {@link #awaitScript} would have thrown for it.
   */
  public List<Reply> awaitEach(String what, List<PendingScript> pending, long deadline) {
    int n = pending.size();
    BlockingQueue<Integer> arrived = new LinkedBlockingQueue<>();
    List<RedisFuture<List<Object>>> futures = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      futures.add(pending.get(i).future());
      notifyOnArrival(futures.get(i), i, arrived);
    }
    Reply[] replies = new Reply[n];
    int open = n;
    try {
      while (open > 0) {
        Integer i = arrived.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (i == null) {
          break; // the deadline: whatever has not answered stays open
        }
        try {
          replies[i] = new Reply(await(what, futures.get(i), deadline), null);
          open--;
        } catch (NoScript e) {
          PendingScript p = pending.get(i);
          RedisFuture<List<Object>> eval =
              dispatch(
                  () ->
                      commands.eval(p.script().body(), ScriptOutputType.MULTI, p.keys(), p.args()));
          futures.set(i, eval);
          notifyOnArrival(eval, i, arrived);
        } catch (RuntimeException e) {
          replies[i] = new Reply(null, e);
          open--;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<Reply> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Reply r = replies[i];
      if (r == null) {
        futures.get(i).cancel(false);
        r =
            new Reply(
                null,
                new StoreUnavailableException(
                    Thread.currentThread().isInterrupted()
                        ? "interrupted while waiting for Redis: " + what
                        : "Redis did not answer "
                            + what
                            + " within "
                            + timeoutText
                            + " (the command timeout)"));
      }
      out.add(r);
    }
    return out;
  }

  private static void notifyOnArrival(
      RedisFuture<List<Object>> future, int index, BlockingQueue<Integer> arrived) {
    future.whenComplete((reply, failure) -> arrived.add(index));
  }

  /**
   * A script's reply, or why there is none: exactly one of the two is set.
   *
   * @param value the reply, an array; null when it failed
   * @param failure what the script's call threw; null when it answered
   */
  public record Reply(@Nullable List<Object> value, @Nullable RuntimeException failure) {}

  /**
   * Writes {@code marker} on the replica-acknowledgement connection, then {@code WAIT replicas
   * timeout} there: how many replicas have every write the store's connection had answered before
   * this call. {@code WAIT} counts the writes of the connection it is sent on, and blocks that
   * connection while it waits (Redis reads nothing else from it meanwhile); on a connection of its
   * own it delays no claim or renewal, and the marker, written after the store's write was
   * answered, follows that write in the replication stream. Within a budget of its own.
   */
  public long awaitReplicas(String what, byte[] marker, int replicas, Duration timeout) {
    RedisClusterAsyncCommands<byte[], byte[]> acks =
        Objects.requireNonNull(replicaAcks, "no replica-acknowledgement connection");
    long deadline = deadline();
    RedisFuture<String> written =
        dispatch(() -> acks.set(marker, new byte[] {'1'}, SetArgs.Builder.px(MARKER_MILLIS)));
    RedisFuture<Long> acked = dispatch(() -> acks.waitForReplication(replicas, timeout.toMillis()));
    await(what + " (marker for WAIT)", written, deadline);
    return await(what + " (WAIT)", acked, deadline);
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

  private <T> T await(String what, RedisFuture<T> future, long deadline) {
    try {
      T value = future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
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
    } catch (CancellationException e) {
      // Lettuce cancels the commands in flight when it resets a connection (CommandHandler.reset)
      throw new StoreUnavailableException(
          "Redis' client cancelled " + what + " (its connection was reset)", e);
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
      if (UNAVAILABLE.contains(code(message))) {
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

  /** The error code of a Redis error reply: its first word. */
  static String code(String message) {
    return message.split(" ", 2)[0].toUpperCase(Locale.ROOT);
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

  /** A number as a script's argument: its decimal digits. */
  public static byte[] number(long n) {
    return ascii(Long.toString(n));
  }

  /** Text of the scripts' alphabet (members, numbers, names) as a script's argument. */
  public static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
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
    return new String(bytes(reply, i), StandardCharsets.UTF_8);
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
