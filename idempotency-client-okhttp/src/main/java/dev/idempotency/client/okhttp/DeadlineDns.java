package dev.idempotency.client.okhttp;

import dev.idempotency.client.LookupDeadline;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import okhttp3.Dns;
import org.jspecify.annotations.Nullable;

/**
 * The client's own {@link Dns}, bounded by the attempt ({@link LookupDeadline}): OkHttp's timeouts
 * bound the connect, the writes and the reads, not the lookup before them. One instance per wrapped
 * {@code Dns}, so that OkHttp's connection pool, which tells addresses apart by their {@code Dns},
 * keeps reusing connections across calls.
 */
final class DeadlineDns implements Dns {
  private final Dns delegate;

  private DeadlineDns(Dns delegate) {
    this.delegate = delegate;
  }

  /**
   * {@code dns} bounded by the attempt; {@code previous} again if it already wraps {@code dns}.
   *
   * @param dns the client's resolver
   * @param previous the wrapper made last time, or {@code null}
   */
  static DeadlineDns wrap(Dns dns, @Nullable DeadlineDns previous) {
    if (dns instanceof DeadlineDns already) {
      return already;
    }
    return previous != null && previous.delegate == dns ? previous : new DeadlineDns(dns);
  }

  @Override
  public List<InetAddress> lookup(String hostname) throws UnknownHostException {
    return LookupDeadline.await(hostname, () -> delegate.lookup(hostname));
  }

  @Override
  public String toString() {
    return "DeadlineDns[" + delegate + "]";
  }
}
