package dev.idempotency.store.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A random name for one call of the store, written into what the call changes: when Lettuce writes
 * a script again after a reconnect (it re-sends what it wrote but was not answered), the script
 * finds its own nonce and answers as the first time instead of judging its own effect as someone
 * else's. 128 random bits: two calls never share one. Not a secret. Stateless.
 */
public final class CallNonce {
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

  private CallNonce() {}

  /** A new nonce, 22 ASCII characters. */
  public static byte[] next() {
    byte[] random = new byte[16];
    ThreadLocalRandom.current().nextBytes(random);
    return ENCODER.encodeToString(random).getBytes(StandardCharsets.US_ASCII);
  }
}
