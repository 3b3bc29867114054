/** The retry-storm simulation: backoff schedules compared in simulated time (not JMH). */
package dev.idempotency.benchmarks.storm;
