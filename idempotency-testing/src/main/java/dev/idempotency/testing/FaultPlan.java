package dev.idempotency.testing;

/**
 * Decides the {@link Fault} of each request {@link FaultInjectingProxy} receives, in the order the
 * requests arrive: {@link ScriptedFaults} for a test's exact sequence, {@link RandomFaults} for
 * seeded chaos.
 */
@FunctionalInterface
public interface FaultPlan {
  /**
   * The fault of the next request; called once per request, possibly from several threads at once.
   *
   * @return what the proxy does with it
   */
  Fault next();
}
