package dev.idempotency.client;

import java.net.UnknownHostException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Name lookups bounded by the attempt, for an adapter whose HTTP client resolves names with a
 * resolver it can wrap (OkHttp's {@code Dns}, Apache HttpClient 5's {@code DnsResolver}). Those
 * clients' timeouts bound the connect, the writes and the reads, not the lookup before them, and a
 * resolver that takes its time holds the attempt, and the call, past its deadline.
 *
 * <p>The adapter marks the attempt running on its thread ({@link #begin(long)}, {@link #end()});
 * the wrapped resolver calls {@link #await(String, Lookup)}, which runs the lookup on a daemon
 * thread of its own and waits for it only until the attempt's end. A blocked {@code getaddrinfo}
 * cannot be interrupted, so a lookup given up on keeps its thread until the resolver answers (and
 * then warms the JVM's cache for the next attempt). Outside an attempt, the lookup runs as it is.
 */
public final class LookupDeadline {
  /** The end of the attempt running on this thread, in {@link System#nanoTime()}'s terms. */
  private static final ThreadLocal<@Nullable Long> ATTEMPT_END = new ThreadLocal<>();

  private static final ExecutorService LOOKUPS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "idempotency-name-lookup");
            t.setDaemon(true);
            return t;
          });

  private LookupDeadline() {}

  /** A name lookup, as a resolver does it. */
  @FunctionalInterface
  public interface Lookup<T> {
    /**
     * Looks the name up.
     *
     * @return the addresses
     * @throws UnknownHostException if the name has none
     */
    T get() throws UnknownHostException;
  }

  /**
   * A lookup that had not finished when the attempt ended: the request was never sent, and the
   * allowlist retries it for any method (as a {@link RequestNotProcessedException}). An {@link
   * UnknownHostException}, because that is what resolvers may throw.
   */
  public static final class Exceeded extends UnknownHostException {
    private static final long serialVersionUID = 1L;

    Exceeded(String message) {
      super(message);
    }
  }

  /**
   * Marks the attempt that runs on this thread, until {@link #end()}.
   *
   * @param endNanos the attempt's end, in {@link System#nanoTime()}'s terms
   */
  public static void begin(long endNanos) {
    ATTEMPT_END.set(endNanos);
  }

  /** Ends the mark of {@link #begin(long)}. */
  public static void end() {
    ATTEMPT_END.remove();
  }

  /**
   * Runs a lookup, waiting for it no longer than the attempt on this thread runs.
   *
   * @param hostname the name, for the message
   * @param lookup the resolver's own lookup
   * @param <T> what the resolver returns
   * @return what the lookup returned
   * @throws UnknownHostException what the lookup threw, or {@link Exceeded} when the attempt ended
   *     first (or the thread was interrupted while it waited)
   */
  public static <T> T await(String hostname, Lookup<T> lookup) throws UnknownHostException {
    Long end = ATTEMPT_END.get();
    if (end == null) {
      return lookup.get();
    }
    Future<T> running = LOOKUPS.submit(lookup::get);
    try {
      return running.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      running.cancel(true);
      throw new Exceeded(
          "the lookup of "
              + hostname
              + " did not finish before the attempt's end: the request was never sent");
    } catch (InterruptedException e) {
      running.cancel(true);
      Thread.currentThread().interrupt();
      Exceeded interrupted = new Exceeded("interrupted while looking up " + hostname);
      interrupted.initCause(e);
      throw interrupted;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UnknownHostException unknown) {
        throw unknown;
      }
      if (cause instanceof RuntimeException unchecked) {
        throw unchecked;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      UnknownHostException failed =
          new UnknownHostException("the lookup of " + hostname + " failed: " + cause);
      failed.initCause(cause);
      throw failed;
    }
  }
}
