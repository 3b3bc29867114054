package dev.idempotency.benchmarks;

import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/** {@link InMemoryKeyStore} against {@code putIfAbsent} + {@code replace} on a bare {@link ConcurrentHashMap}. */
final class InMemoryFixture implements Fixture {
  private InMemoryKeyStore store = new InMemoryKeyStore();
  private MapBaseline baseline = new MapBaseline();

  @Override
  public void clear() {
    store = new InMemoryKeyStore();
    baseline = new MapBaseline();
  }

  @Override
  public KeyStore store() {
    return store;
  }

  @Override
  public Baseline baseline() {
    return baseline;
  }

  /** A record is {fingerprint, response}; a null response means in flight. */
  static final class MapBaseline implements Baseline {
    private final ConcurrentHashMap<String, byte[][]> map = new ConcurrentHashMap<>();

    @Override
    public void claimAndComplete(String scope, String key, byte[] fingerprint, byte[] response) {
      String id = scope + '\u0000' + key;
      byte[][] inFlight = {fingerprint, null};
      if (map.putIfAbsent(id, inFlight) == null) {
        map.replace(id, inFlight, new byte[][] {fingerprint, response});
      }
    }

    @Override
    public byte[] replay(String scope, String key, byte[] fingerprint) {
      byte[][] r = map.get(scope + '\u0000' + key);
      return r != null && Arrays.equals(r[0], fingerprint) ? r[1] : null;
    }

    @Override
    public boolean mismatch(String scope, String key, byte[] fingerprint) {
      byte[][] r = map.get(scope + '\u0000' + key);
      return r != null && !Arrays.equals(r[0], fingerprint);
    }
  }
}
