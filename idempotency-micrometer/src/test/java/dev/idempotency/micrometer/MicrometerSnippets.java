package dev.idempotency.micrometer;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.Reaper;
import dev.idempotency.spi.KeyStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The code of docs/operations.md, compiled here, where Micrometer is on the class path; the
 * examples module's DocSnippetsTest holds the page's blocks equal to the regions.
 */
final class MicrometerSnippets {
  private MicrometerSnippets() {}

  private static final System.Logger LOG = System.getLogger("maintenance");

  static ScheduledExecutorService meters(MeterRegistry registry, KeyStore store) {
    // tag::meters[]
    IdempotencyMetrics metrics = IdempotencyMetrics.create(registry);
    IdempotencyEngine engine =
        IdempotencyEngine.builder(metrics.timed(store))
            .config(IdempotencyConfig.builder().listener(metrics).build())
            .build();
    // end::meters[]
    // tag::maintenance[]
    Reaper reaper =
        new Reaper(engine.store(), engine.config(), 500, 20); // batch size, batches a run
    ScheduledExecutorService maintenance = Executors.newSingleThreadScheduledExecutor();
    maintenance.scheduleWithFixedDelay(
        () -> {
          try {
            metrics.reaperRan(reaper.runOnce());
            metrics.sampleAbandoned(engine.store(), engine.config().clock().instant(), 1000);
          } catch (RuntimeException e) { // a store that is down: the next run comes as scheduled
            LOG.log(System.Logger.Level.WARNING, "idempotency maintenance failed", e);
          }
        },
        1,
        10,
        TimeUnit.MINUTES);
    // end::maintenance[]
    return maintenance;
  }
}
