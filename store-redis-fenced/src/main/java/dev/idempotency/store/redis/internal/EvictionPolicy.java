package dev.idempotency.store.redis.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Refuses a server that may evict the store's keys. Every record and fence counter has an expiry
 * and the index sets have none, so every {@code maxmemory-policy} but {@code noeviction} can drop
 * some of them once {@code maxmemory} is reached: a record (a retry executes again), a counter (its
 * next fence comes from the clock), or an index set (the reaper and {@code findAbandoned} lose
 * track of every record in it). Read with {@code INFO memory} from the primary of a standalone or
 * Sentinel connection, from every primary of a Cluster. Stateless.
 */
public final class EvictionPolicy {
  /** The one policy under which Redis refuses writes rather than drop keys. */
  public static final String NO_EVICTION = "noeviction";

  /**
   * The shortest time the check waits for: it runs once, when the store is built, and on a Cluster
   * connecting to every primary comes first, which a short command timeout would not leave room for
   * on a busy machine.
   */
  public static final Duration LEAST_WAIT = Duration.ofSeconds(5);

  private EvictionPolicy() {}

  /**
   * Reads the policy of every primary the connection writes to, within {@code commandTimeout} in
   * all, or {@link #LEAST_WAIT} if that is longer.
   *
   * @param connection a standalone (or Sentinel) or Cluster connection
   * @throws IllegalStateException naming a node whose policy can evict, and the fix
   * @throws StoreUnavailableException if a primary does not answer in time
   * @throws KeyStoreException if a primary refuses {@code INFO} (an ACL, a renamed command)
   */
  public static void requireNoEviction(Object connection, Duration commandTimeout) {
    Duration timeout = commandTimeout.compareTo(LEAST_WAIT) > 0 ? commandTimeout : LEAST_WAIT;
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, CompletableFuture<String>> infos = new LinkedHashMap<>();
    if (connection instanceof StatefulRedisClusterConnection<?, ?> cluster) {
      cluster
          .async()
          .upstream()
          .commands()
          .info("memory")
          .asMap()
          .forEach((node, info) -> infos.put(node.getUri().toString(), info));
    } else {
      StatefulRedisConnection<?, ?> standalone = (StatefulRedisConnection<?, ?>) connection;
      infos.put("the primary", standalone.async().info("memory").toCompletableFuture());
    }
    infos.forEach(
        (node, info) -> {
          String policy = policy(node, await(node, info, deadline, timeout));
          if (!NO_EVICTION.equals(policy)) {
            throw new IllegalStateException(
                "Redis at "
                    + node
                    + " runs with maxmemory-policy "
                    + policy
                    + ", which can evict the store's keys once maxmemory is reached: a record (a"
                    + " retry then executes again), a fence counter, or an index set (the reaper"
                    + " and findAbandoned then lose track of its records). Run it with"
                    + " maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, and"
                    + " in its configuration file), so that a full server refuses writes instead");
          }
        });
  }

  private static String await(
      String node, CompletableFuture<String> info, long deadline, Duration timeout) {
    try {
      return info.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      info.cancel(false);
      throw new StoreUnavailableException(
          "Redis at " + node + " did not answer INFO memory within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while reading Redis' eviction policy", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof RedisCommandExecutionException refused) {
        throw new KeyStoreException(
            "Redis at "
                + node
                + " refused INFO memory ("
                + refused.getMessage()
                + "), which the store reads to make sure the server never evicts its keys: let"
                + " the store's user run INFO, or build with requireNoEviction(false) once you"
                + " made sure its maxmemory-policy is noeviction",
            refused);
      }
      throw new StoreUnavailableException(
          "Redis at " + node + " could not be reached to read its eviction policy: " + cause,
          cause);
    }
  }

  /** The {@code maxmemory_policy} line of an {@code INFO memory} reply. */
  static String policy(String node, String info) {
    String key = "maxmemory_policy:";
    return info.lines()
        .filter(line -> line.startsWith(key))
        .map(line -> line.substring(key.length()).trim().toLowerCase(Locale.ROOT))
        .findFirst()
        .orElseThrow(
            () ->
                new KeyStoreException(
                    "Redis at " + node + " answered INFO memory without maxmemory_policy"));
  }
}
