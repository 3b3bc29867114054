package dev.idempotency.client;

import dev.idempotency.testing.ThreadPools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstanceFactoryContext;
import org.junit.jupiter.api.extension.TestInstancePreConstructCallback;

/**
 * Fails a test, or a test class, that leaves a non-daemon thread running. Such a thread is a
 * server, pool or client the test did not close; it keeps the test JVM alive after the last test,
 * and its work can reach into the next one. Every test of this module runs under it:
 * junit-platform.properties turns on extension autodetection and {@code META-INF/services} names
 * this class.
 *
 * <p>Per test, the threads alive after its {@code @AfterEach} methods are compared with those alive
 * before its test instance was constructed (so what field initializers start counts: a server in a
 * field is the test's); per class, those alive after {@code @AfterAll} with those alive before
 * {@code @BeforeAll} or the class's instance, whichever came first. A new non-daemon thread gets up
 * to {@link #GRACE} (shared by all of them; {@link #GRACE_PARAMETER} sets another) to end, because
 * a pool that was just shut down may still be unwinding; daemon threads are left alone, as they
 * never keep a JVM up.
 */
public final class ThreadLeakGuard
    implements TestInstancePreConstructCallback,
        BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback {
  /**
   * How long new non-daemon threads may take to end after the test or class closed what it started.
   */
  public static final Duration GRACE = Duration.ofSeconds(5);

  /**
   * The configuration parameter that sets another grace, as an ISO-8601 duration (the guard's own
   * test uses it).
   */
  public static final String GRACE_PARAMETER = "dev.idempotency.client.threadLeakGrace";

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ThreadLeakGuard.class);

  /**
   * A test instance made per test method is constructed in that test's context, so its snapshot is
   * the test's.
   */
  @Override
  public ExtensionContextScope getTestInstantiationExtensionContextScope(
      ExtensionContext rootContext) {
    return ExtensionContextScope.TEST_METHOD;
  }

  @Override
  public void preConstructTestInstance(
      TestInstanceFactoryContext factoryContext, ExtensionContext context) {
    remember(context);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    remember(context);
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    check(context, "test class");
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    remember(context);
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    check(context, "test");
  }

  /**
   * Keeps the first snapshot taken in this context, under its unique id (a store's get also reads
   * the parent's).
   */
  private static void remember(ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    if (store.get(context.getUniqueId()) == null) {
      store.put(context.getUniqueId(), liveThreads());
    }
  }

  @SuppressWarnings("unchecked")
  private static void check(ExtensionContext context, String what) throws InterruptedException {
    Set<Thread> before =
        (Set<Thread>) context.getStore(NAMESPACE).remove(context.getUniqueId(), Set.class);
    if (before == null) {
      return; // the snapshot's callback never ran (an earlier extension failed); nothing to compare
      // with
    }
    List<Thread> leaked =
        leakedSince(
            before,
            context.getConfigurationParameter(GRACE_PARAMETER, Duration::parse).orElse(GRACE));
    if (!leaked.isEmpty()) {
      throw new AssertionError(
          "the "
              + what
              + " "
              + context.getDisplayName()
              + " left "
              + leaked.size()
              + " non-daemon thread(s) running (close what it started, in @AfterEach or try-with-resources):\n"
              + describe(leaked));
    }
  }

  /**
   * Shuts a test fixture's pool down (interrupting its threads) and waits up to {@link #GRACE} for
   * them to end. Close the fixture's sockets first: a blocked socket read does not answer an
   * interrupt.
   *
   * @param pool the fixture's pool
   * @param owner the fixture, for the message
   * @throws IllegalStateException if a thread is still running after the grace, or the wait was
   *     interrupted
   */
  public static void shutDown(ExecutorService pool, String owner) {
    ThreadPools.shutDown(pool, GRACE, owner);
  }

  /**
   * @return every thread alive now
   */
  static Set<Thread> liveThreads() {
    return Set.copyOf(Thread.getAllStackTraces().keySet());
  }

  /**
   * The non-daemon threads alive now that were not in {@code before} and do not end within {@code
   * grace}.
   *
   * @param before the threads alive at the snapshot
   * @param grace how long all of them together may take to end
   * @return the threads still running, in no particular order
   * @throws InterruptedException if interrupted while waiting for them to end
   */
  static List<Thread> leakedSince(Set<Thread> before, Duration grace) throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    List<Thread> leaked = new ArrayList<>();
    for (Thread t : liveThreads()) {
      if (before.contains(t) || t.isDaemon()) {
        continue;
      }
      long left = deadline - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(t, left);
      }
      if (t.isAlive()) {
        leaked.add(t);
      }
    }
    return leaked;
  }

  /**
   * One line per thread: its name, its state, and the first frame of its stack outside the JDK (the
   * code it runs; the JDK's frames above it only say how it waits), or for a JDK thread its
   * outermost frame below {@code Thread.run} (its loop, such as the JDK HTTP server's dispatcher).
   */
  static String describe(List<Thread> threads) {
    return threads.stream()
        .map(t -> "  \"" + t.getName() + "\" " + t.getState() + " in " + owningFrame(t))
        .collect(Collectors.joining("\n"));
  }

  private static String owningFrame(Thread t) {
    List<StackTraceElement> stack = List.of(t.getStackTrace());
    return stack.stream()
        .filter(f -> !isJdk(f))
        .findFirst()
        .or(
            () ->
                stack.stream()
                    .filter(f -> !f.getClassName().equals(Thread.class.getName()))
                    .reduce((a, b) -> b))
        .map(
            f ->
                f.getClassName()
                    + "."
                    + f.getMethodName()
                    + "("
                    + f.getFileName()
                    + ":"
                    + f.getLineNumber()
                    + ")")
        .orElse("(no stack)");
  }

  private static boolean isJdk(StackTraceElement frame) {
    String c = frame.getClassName();
    return c.startsWith("java.")
        || c.startsWith("javax.")
        || c.startsWith("jdk.")
        || c.startsWith("sun.")
        || c.startsWith("com.sun.");
  }
}
