package dev.idempotency.openapi;

import dev.idempotency.openapi.internal.Commands;
import java.io.PrintStream;

/**
 * The command line: {@code check}, {@code routes}, {@code verify} and {@code gates} on an OpenAPI
 * document (run {@code bash scripts/openapi-check.sh --help}, or see {@code docs/openapi.md}).
 *
 * <p>Exit status: {@value #OK} nothing failing; {@value #FAILING} an operation fails (check), an
 * answer differs or is unproven (verify), or a gate fails (gates); {@value #UNUSABLE} an unreadable
 * or invalid document, or a malformed command line.
 */
public final class OpenApiCli {
  /** Exit status: nothing to fix. */
  public static final int OK = 0;

  /**
   * Exit status: at least one operation fails, a repeated request answered differently, or a gate
   * failed.
   */
  public static final int FAILING = 1;

  /** Exit status: the input could not be read, or the command line is malformed. */
  public static final int UNUSABLE = 2;

  private OpenApiCli() {}

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    // swagger-parser logs through SLF4J, which without a binding warns on stderr on every run
    if (System.getProperty("slf4j.internal.verbosity") == null) {
      System.setProperty("slf4j.internal.verbosity", "ERROR");
    }
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the command line, printing to {@code out} (results) and {@code err} (messages), and
   * returns the exit status instead of exiting: for tests and for callers inside a JVM they keep.
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return Commands.run(args, out, err);
  }
}
