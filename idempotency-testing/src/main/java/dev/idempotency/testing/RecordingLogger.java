package dev.idempotency.testing;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * A System.Logger that keeps every message at INFO and above; DEBUG and below are off. For the
 * client tests, which assert what a retry logs.
 */
public final class RecordingLogger implements System.Logger {
  public record Entry(Level level, String message) {}

  private final List<Entry> entries = new CopyOnWriteArrayList<>();
  private final boolean enabled;

  public RecordingLogger() {
    this(true);
  }

  private RecordingLogger(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * A logger that records nothing and reports every level as off (for the fleet simulation).
   *
   * @return the silent logger
   */
  public static RecordingLogger silent() {
    return new RecordingLogger(false);
  }

  public List<Entry> entries() {
    return List.copyOf(entries);
  }

  public List<String> messages(Level level) {
    return entries.stream().filter(e -> e.level() == level).map(Entry::message).toList();
  }

  @Override
  public String getName() {
    return "recording";
  }

  @Override
  public boolean isLoggable(Level level) {
    return enabled && level.getSeverity() >= Level.INFO.getSeverity();
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
    if (isLoggable(level)) {
      entries.add(new Entry(level, msg));
    }
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String format, Object... params) {
    if (isLoggable(level)) {
      entries.add(
          new Entry(
              level,
              params == null || params.length == 0
                  ? format
                  : java.text.MessageFormat.format(format, params)));
    }
  }

  @Override
  public void log(Level level, Supplier<String> msgSupplier) {
    if (isLoggable(level)) {
      entries.add(new Entry(level, msgSupplier.get()));
    }
  }
}
