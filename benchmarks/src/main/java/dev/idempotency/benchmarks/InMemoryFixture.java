package dev.idempotency.benchmarks;

import dev.idempotency.RecordId;
import dev.idempotency.core.InMemoryKeyStore;
import dev.idempotency.spi.KeyStore;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link InMemoryKeyStore} against {@code putIfAbsent} + {@code replace} on a bare {@link
 * ConcurrentHashMap}.
 */
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

  /**
   * A record is {fingerprint, response}; a null response means in flight. Keyed by the same {@link
   * RecordId} the store gets, so both sides pay for building and validating the id and the ratio
   * shows the store's own work.
   */
  static final class MapBaseline implements Baseline {
    private final ConcurrentHashMap<RecordId, byte[][]> map = new ConcurrentHashMap<>();

    @Override
    public void claimAndComplete(String scope, String key, byte[] fingerprint, byte[] response) {
      RecordId id = RecordId.of(scope, key);
      byte[][] inFlight = {fingerprint, null};
      if (map.putIfAbsent(id, inFlight) == null) {
        map.replace(id, inFlight, new byte[][] {fingerprint, response});
      }
    }

    @Override
    public byte[] replay(String scope, String key, byte[] fingerprint) {
      byte[][] r = map.get(RecordId.of(scope, key));
      return r != null && Arrays.equals(r[0], fingerprint) ? r[1] : null;
    }

    @Override
    public boolean mismatch(String scope, String key, byte[] fingerprint) {
      byte[][] r = map.get(RecordId.of(scope, key));
      return r != null && !Arrays.equals(r[0], fingerprint);
    }
  }
}
