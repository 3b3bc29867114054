package dev.idempotency.benchmarks.storm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Reproduces the shape of Marc Brooker's published comparison of backoff schedules: N clients
 * contend for one resource with optimistic concurrency; each call reads the resource's version and,
 * one call duration later, writes conditionally on it; a client whose write lost retries after its
 * backoff. We count the calls all clients make, and the time until the last one succeeds, as N
 * grows.
 *
 * <p>A discrete-event simulation in simulated time (milliseconds), seeded, so every run prints the
 * same figures: it measures schedules, not this machine. Run it with {@code java -cp
 * benchmarks/target/benchmarks.jar dev.idempotency.benchmarks.storm.RetryStormSimulation [outDir]};
 * it writes {@code retry-storm.csv} and {@code retry-storm.svg}.
 */
public final class RetryStormSimulation {
  /**
   * Backoff base and cap (simulated ms). With a call that holds the resource longer than the base
   * (a read-modify- write round trip), the four schedules line up as in Brooker's charts: no jitter
   * does quadratic work, equal jitter does slightly more work than full jitter and takes much
   * longer, decorrelated jitter finishes sooner than full jitter for somewhat more work. With a
   * call much shorter than the base, decorrelated also does less work.
   */
  static final double BASE = 2;

  static final double CAP = 2_000;

  /**
   * How long one call holds the resource between its read and its conditional write (simulated ms).
   */
  static final double CALL = 5;

  static final int RUNS = 10;

  private RetryStormSimulation() {}

  /**
   * Totals of one simulated contention: all clients start at once and retry until their write wins.
   */
  record Result(long calls, double millisToFinish) {}

  /** One contention of {@code clients} clients under {@code jitter}, seeded. */
  static Result simulate(Jitter jitter, int clients, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    // each event: a client's call begins at time t (it reads the version then) and commits at t +
    // CALL
    record Call(double start, int client, int attempt, double previousSleep) {}
    PriorityQueue<double[]> commits = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
    PriorityQueue<Call> starts = new PriorityQueue<>((a, b) -> Double.compare(a.start, b.start));
    for (int c = 0; c < clients; c++) {
      // all clients start within the first call duration: the thundering herd after an outage
      starts.add(new Call(random.nextDouble() * CALL, c, 0, BASE));
    }
    long version = 0;
    long calls = 0;
    double finish = 0;
    // commits[i] = {commitTime, client, attempt, versionRead, previousSleep}
    while (!starts.isEmpty() || !commits.isEmpty()) {
      boolean startNext =
          !starts.isEmpty() && (commits.isEmpty() || starts.peek().start <= commits.peek()[0]);
      if (startNext) {
        Call call = starts.poll();
        calls++;
        commits.add(
            new double[] {
              call.start + CALL, call.client, call.attempt, version, call.previousSleep
            });
        continue;
      }
      double[] commit = commits.poll();
      if ((long) commit[3] == version) {
        version++;
        finish = Math.max(finish, commit[0]);
      } else {
        int attempt = (int) commit[2];
        double sleep = jitter.nextSleep(BASE, CAP, attempt, commit[4], random);
        starts.add(new Call(commit[0] + sleep, (int) commit[1], attempt + 1, sleep));
      }
    }
    return new Result(calls, finish);
  }

  /**
   * Writes the CSV and the chart for N = 1..100 clients into {@code args[0]} (default
   * docs/benchmarks).
   */
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "docs/benchmarks");
    Files.createDirectories(out);
    int[] clientCounts = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    Map<Jitter, double[]> calls = new EnumMap<>(Jitter.class);
    Map<Jitter, double[]> times = new EnumMap<>(Jitter.class);
    StringBuilder csv = new StringBuilder("jitter,clients,mean_calls,mean_ms_to_finish\n");
    for (Jitter jitter : Jitter.values()) {
      double[] c = new double[clientCounts.length];
      double[] t = new double[clientCounts.length];
      for (int i = 0; i < clientCounts.length; i++) {
        for (int run = 0; run < RUNS; run++) {
          Result r = simulate(jitter, clientCounts[i], 31L * run + clientCounts[i]);
          c[i] += r.calls() / (double) RUNS;
          t[i] += r.millisToFinish() / RUNS;
        }
        csv.append(
            String.format(Locale.ROOT, "%s,%d,%.1f,%.1f%n", jitter, clientCounts[i], c[i], t[i]));
      }
      calls.put(jitter, c);
      times.put(jitter, t);
    }
    Files.writeString(out.resolve("retry-storm.csv"), csv, StandardCharsets.UTF_8);
    Files.writeString(
        out.resolve("retry-storm.svg"), chart(clientCounts, calls, times), StandardCharsets.UTF_8);
    System.out.print(csv);
  }

  /** Two side-by-side line charts (total calls; time to finish) as a self-contained SVG. */
  static String chart(int[] x, Map<Jitter, double[]> calls, Map<Jitter, double[]> times) {
    StringBuilder svg = new StringBuilder();
    svg.append(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"400\" font-family=\"sans-serif\""
            + " font-size=\"12\">\n<rect width=\"960\" height=\"400\" fill=\"white\"/>\n");
    panel(svg, 0, "Total calls (all clients) vs clients, log scale", x, calls);
    panel(svg, 480, "Time until the last succeeds (ms) vs clients, log scale", x, times);
    String[] colours = {"#d62728", "#ff7f0e", "#2ca02c", "#1f77b4"};
    int i = 0;
    for (Jitter j : Jitter.values()) {
      int y = 370;
      int lx = 120 + i * 190;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
                  + "<text x=\"%d\" y=\"%d\">%s jitter</text>%n",
              lx,
              y,
              lx + 30,
              y,
              colours[i],
              lx + 36,
              y + 4,
              j == Jitter.NONE ? "no" : j.name().toLowerCase(Locale.ROOT)));
      i++;
    }
    return svg.append("</svg>\n").toString();
  }

  /**
   * One line chart with a log-10 y axis: no jitter's calls grow with the square of the clients, and
   * on a linear axis they would flatten the other three schedules into one line.
   */
  private static void panel(
      StringBuilder svg, int ox, String title, int[] x, Map<Jitter, double[]> series) {
    String[] colours = {"#d62728", "#ff7f0e", "#2ca02c", "#1f77b4"};
    double maxY = 1;
    for (double[] ys : series.values()) {
      for (double y : ys) {
        maxY = Math.max(maxY, y);
      }
    }
    int decades = (int) Math.ceil(Math.log10(maxY));
    int left = ox + 60;
    int top = 40;
    int width = 390;
    int height = 280;
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"24\" font-weight=\"bold\">%s</text>%n",
            ox + 20,
            title));
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
            left,
            top,
            left,
            top + height,
            left,
            top + height,
            left + width,
            top + height));
    for (int d = 0; d <= decades; d++) {
      int y = top + height - (int) (height * d / (double) decades);
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
                  + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
              left - 4,
              y + 4,
              String.format(Locale.ROOT, "%,d", (long) Math.pow(10, d)),
              left,
              y,
              left + width,
              y));
    }
    for (int i = 0; i < x.length; i++) {
      int px = left + (int) (width * (x[i] - x[0]) / (double) (x[x.length - 1] - x[0]));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
              px,
              top + height + 16,
              x[i]));
    }
    int c = 0;
    for (Map.Entry<Jitter, double[]> e : series.entrySet()) {
      List<String> points = new ArrayList<>();
      for (int i = 0; i < x.length; i++) {
        double px = left + width * (x[i] - x[0]) / (double) (x[x.length - 1] - x[0]);
        double py = top + height - height * Math.log10(Math.max(1, e.getValue()[i])) / decades;
        points.add(String.format(Locale.ROOT, "%.1f,%.1f", px, py));
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
              colours[c++],
              String.join(" ", points)));
    }
  }
}
