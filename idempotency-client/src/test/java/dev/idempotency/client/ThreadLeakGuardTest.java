package dev.idempotency.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The guard every test of this module runs under: which threads it counts as left running, and
 * which not.
 */
class ThreadLeakGuardTest {
  private static final Duration SHORT_GRACE = Duration.ofMillis(50);

  /**
   * Holds the thread {@link GuardedTests#leavesAThreadRunning} leaves behind until the test that
   * ran it lets it go.
   */
  private static final CountDownLatch GUARDED_TESTS_RELEASE = new CountDownLatch(1);

  /**
   * Run only through the launcher below (surefire leaves nested classes alone): one test that
   * leaves a non-daemon thread running, one that closes what it started.
   */
  static class GuardedTests {
    static volatile Thread leftRunning;

    @Test
    void leavesAThreadRunning() {
      leftRunning = blockedOn(GUARDED_TESTS_RELEASE, false);
    }

    @Test
    void joinsItsThread() throws InterruptedException {
      Thread t = blockedOn(new CountDownLatch(0), false);
      t.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  /**
   * The guard is registered for every test of the module (by autodetection, as surefire runs them):
   * the test that leaves a thread running fails naming it, and so does its class; the test that
   * joins its thread passes.
   */
  @Test
  void everyTestOfTheModuleRunsUnderTheGuard() throws InterruptedException {
    Map<String, TestExecutionResult> results = new HashMap<>();
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(GuardedTests.class))
            .configurationParameter(ThreadLeakGuard.GRACE_PARAMETER, SHORT_GRACE.toString())
            .build();
    try {
      LauncherFactory.create()
          .execute(
              request,
              new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                  results.put(id.getDisplayName(), result);
                }
              });
    } finally {
      GUARDED_TESTS_RELEASE.countDown();
      if (GuardedTests.leftRunning != null) {
        GuardedTests.leftRunning.join(TimeUnit.SECONDS.toMillis(10));
      }
    }

    assertThat(results.get("joinsItsThread()").getStatus())
        .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
    assertThat(results.get("leavesAThreadRunning()").getStatus())
        .isEqualTo(TestExecutionResult.Status.FAILED);
    assertThat(results.get("leavesAThreadRunning()").getThrowable())
        .get()
        .asString()
        .contains("the test leavesAThreadRunning() left 1 non-daemon thread(s) running")
        .contains("\"guard-test-worker\" WAITING in " + ThreadLeakGuardTest.class.getName());
    assertThat(results.get("ThreadLeakGuardTest$GuardedTests").getThrowable())
        .get()
        .asString()
        .contains(
            "the test class ThreadLeakGuardTest$GuardedTests left 1 non-daemon thread(s) running");
  }

  private static Thread blockedOn(CountDownLatch release, boolean daemon) {
    Thread t =
        new Thread(
            () -> {
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "guard-test-" + (daemon ? "daemon" : "worker"));
    t.setDaemon(daemon);
    t.start();
    return t;
  }

  @Test
  void aNonDaemonThreadStillRunningIsReportedWithWhereItWaits() throws InterruptedException {
    Set<Thread> before = ThreadLeakGuard.liveThreads();
    CountDownLatch release = new CountDownLatch(1);
    Thread worker = blockedOn(release, false);
    try {
      List<Thread> leaked = ThreadLeakGuard.leakedSince(before, SHORT_GRACE);
      assertThat(leaked).containsExactly(worker);
      assertThat(ThreadLeakGuard.describe(leaked))
          .startsWith(
              "  \"guard-test-worker\" WAITING in dev.idempotency.client.ThreadLeakGuardTest.");
    } finally {
      release.countDown();
      worker.join(TimeUnit.SECONDS.toMillis(10));
    }
    assertThat(worker.isAlive()).isFalse();
    assertThat(ThreadLeakGuard.leakedSince(before, SHORT_GRACE)).isEmpty();
  }

  @Test
  void threadsThatWereAlreadyRunningOrAreDaemonsAreLeftAlone() throws InterruptedException {
    CountDownLatch release = new CountDownLatch(1);
    Thread earlier = blockedOn(release, false);
    Set<Thread> before = ThreadLeakGuard.liveThreads();
    Thread daemon = blockedOn(release, true);
    try {
      assertThat(ThreadLeakGuard.leakedSince(before, SHORT_GRACE)).isEmpty();
      assertThat(earlier.isAlive()).isTrue();
      assertThat(daemon.isAlive()).isTrue();
    } finally {
      release.countDown();
      earlier.join(TimeUnit.SECONDS.toMillis(10));
      daemon.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  /**
   * A thread that ends within the grace (a pool unwinding after shutdown) is waited for, not
   * reported.
   */
  @Test
  void aThreadEndingWithinTheGraceIsWaitedFor() throws InterruptedException {
    Set<Thread> before = ThreadLeakGuard.liveThreads();
    CountDownLatch release = new CountDownLatch(1);
    Thread worker = blockedOn(release, false);
    Thread releaser =
        new Thread(
            () -> {
              try {
                Thread.sleep(100);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              release.countDown();
            },
            "guard-test-releaser");
    releaser.setDaemon(true);
    releaser.start();
    try {
      assertThat(ThreadLeakGuard.leakedSince(before, Duration.ofSeconds(10))).isEmpty();
      assertThat(worker.isAlive()).isFalse();
    } finally {
      release.countDown();
      worker.join(TimeUnit.SECONDS.toMillis(10));
    }
  }
}
