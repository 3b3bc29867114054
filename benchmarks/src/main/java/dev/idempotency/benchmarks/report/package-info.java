/**
 * Turns JMH's JSON results into the Markdown table of ratios (ours / baseline) that the docs
 * publish.
 */
package dev.idempotency.benchmarks.report;
