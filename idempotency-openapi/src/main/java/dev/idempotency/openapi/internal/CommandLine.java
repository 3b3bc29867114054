package dev.idempotency.openapi.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The parsed command line: a command, one input, and {@code --name value} or {@code --name=value}
 * options (some repeatable). Anything unknown is a {@link UsageException}, never a guess.
 */
public final class CommandLine {
  /** A malformed command line; its message says what, and the caller prints the usage. */
  public static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String problem;

    UsageException(String problem) {
      super(problem);
      this.problem = problem;
    }

    /** What is wrong; empty when the usage was asked for. */
    public String problem() {
      return problem;
    }
  }

  private static final Set<String> FLAGS =
      Set.of("--fail-on-warnings", "--force", "--help", "--lenient", "--third-party");
  private static final Set<String> VALUED =
      Set.of(
          "--header",
          "--key-convention",
          "--format",
          "--out",
          "--window",
          "--path-prefix",
          "--base-url",
          "--requests",
          "--request-header",
          "--ignore",
          "--timeout",
          "--overlay",
          "--concurrency",
          "--gates");
  private static final Set<String> REPEATABLE = Set.of("--request-header", "--ignore");

  private final String command;
  private final String input;
  private final Map<String, List<String>> options;

  private CommandLine(String command, String input, Map<String, List<String>> options) {
    this.command = command;
    this.input = input;
    this.options = options;
  }

  /**
   * Parses {@code args}: {@code <command> <input> [options]}, options anywhere after the command.
   */
  public static CommandLine parse(String... args) throws UsageException {
    if (args.length == 0) {
      throw new UsageException("");
    }
    String command = args[0];
    if (command.equals("--help") || command.equals("-h") || command.equals("help")) {
      throw new UsageException("");
    }
    if (!Set.of("check", "routes", "verify", "gates").contains(command)) {
      throw new UsageException("unknown command \"" + command + "\"");
    }
    String input = null;
    Map<String, List<String>> options = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        if (input != null) {
          throw new UsageException("one input only, but got \"" + input + "\" and \"" + arg + "\"");
        }
        input = arg;
        continue;
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg : arg.substring(0, eq);
      String value;
      if (FLAGS.contains(name)) {
        if (eq >= 0) {
          throw new UsageException(name + " takes no value");
        }
        if (name.equals("--help")) {
          throw new UsageException("");
        }
        value = "true";
      } else if (VALUED.contains(name)) {
        if (eq >= 0) {
          value = arg.substring(eq + 1);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new UsageException(name + " needs a value");
        }
      } else {
        throw new UsageException("unknown option " + name);
      }
      List<String> values = options.computeIfAbsent(name, n -> new ArrayList<>());
      if (!values.isEmpty() && !REPEATABLE.contains(name)) {
        throw new UsageException(name + " given twice");
      }
      values.add(value);
    }
    if (input == null) {
      throw new UsageException(command + " needs the OpenAPI document (a file or a directory)");
    }
    return new CommandLine(command, input, options);
  }

  /** {@code check}, {@code routes}, {@code verify} or {@code gates}. */
  public String command() {
    return command;
  }

  /** The document or directory. */
  public String input() {
    return input;
  }

  /** The option's value, or null when not given. */
  public @Nullable String option(String name) {
    List<String> values = options.get(name);
    return values == null ? null : values.get(0);
  }

  /** The option's value, or {@code fallback}. */
  public String option(String name, String fallback) {
    String value = option(name);
    return value == null ? fallback : value;
  }

  /** Every value of a repeatable option, in order. */
  public List<String> options(String name) {
    return options.getOrDefault(name, List.of());
  }

  /** Whether a flag was given. */
  public boolean flag(String name) {
    return options.containsKey(name);
  }
}
