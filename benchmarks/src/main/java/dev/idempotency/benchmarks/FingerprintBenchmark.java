package dev.idempotency.benchmarks;

import dev.idempotency.Fingerprint;
import dev.idempotency.http.FingerprintStrategy;
import dev.idempotency.http.HttpRequestView;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The default fingerprint (SHA-256 over method, path and body, length-framed) against a bare {@code
 * MessageDigest} over the body alone, for 1 KB and 64 KB bodies.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar FingerprintBenchmark
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FingerprintBenchmark {
  @Param({"1024", "65536"})
  public int bodyBytes;

  private byte[] body;
  private final FingerprintStrategy strategy = FingerprintStrategy.methodPathBody();
  private final HttpRequestView request =
      new HttpRequestView() {
        @Override
        public String method() {
          return "POST";
        }

        @Override
        public String path() {
          return "/payments";
        }

        @Override
        public Optional<String> query() {
          return Optional.empty();
        }

        @Override
        public List<String> headers(String name) {
          return List.of();
        }

        @Override
        public Optional<String> principalName() {
          return Optional.of("merchant-1");
        }

        @Override
        public OptionalLong contentLength() {
          return OptionalLong.of(body.length);
        }

        @Override
        public InputStream body() {
          return new ByteArrayInputStream(body);
        }
      };

  @Setup
  public void setUp() {
    body = new byte[bodyBytes];
    new SplittableRandom(1).nextBytes(body);
  }

  @Benchmark
  public Fingerprint fingerprint() {
    return strategy.fingerprint(request, body);
  }

  @Benchmark
  public byte[] baselineFingerprint() throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(body);
  }
}
