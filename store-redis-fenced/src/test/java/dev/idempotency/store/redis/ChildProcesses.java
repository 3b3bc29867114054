package dev.idempotency.store.redis;

import java.util.concurrent.TimeUnit;

/**
 * Kills the processes tests start, also when the test JVM ends before the test closes them: a
 * shutdown hook per process, removed once the test closed it. {@code destroyForcibly} is {@code
 * SIGKILL}, which ends a process frozen with {@code kill -STOP} too. Stateless.
 */
final class ChildProcesses {
  private ChildProcesses() {}

  /** Registers a shutdown hook that kills {@code process}; returns it for {@link #kill}. */
  static Thread killOnExit(Process process) {
    Thread hook = new Thread(process::destroyForcibly, "kill-child-" + process.pid());
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  /** Kills {@code process} now (waiting up to 10 s) and removes its hook. */
  static void kill(Process process, Thread hook) throws InterruptedException {
    try {
      if (process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      forget(hook);
    }
  }

  /** Removes a hook of {@link #killOnExit} (the JVM may already be shutting down). */
  static void forget(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }
}
