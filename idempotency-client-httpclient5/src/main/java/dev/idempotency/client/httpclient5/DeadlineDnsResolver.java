package dev.idempotency.client.httpclient5;

import dev.idempotency.client.LookupDeadline;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Objects;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;

/**
 * A {@link DnsResolver} bounded by the attempt of {@link IdempotentRetryExec}: a lookup made during
 * an attempt waits for its answer only until the attempt's end, then fails with {@link
 * LookupDeadline.Exceeded} (nothing was sent: retried for any method). HttpClient 5's timeouts
 * bound the pool wait, the connect and the reads, not the lookup before the connect, and the
 * resolver belongs to the connection manager, where the handler cannot reach it: give it to the
 * connection manager.
 *
 * <pre>{@code
 * CloseableHttpClient http = IdempotentRetryExec.of(policy).installOn(HttpClients.custom()
 *     .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
 *         .setDnsResolver(DeadlineDnsResolver.system())
 *         .build()))
 *     .build();
 * }</pre>
 *
 * <p>The lookup runs on a daemon thread of its own ({@link LookupDeadline}); one given up on keeps
 * that thread until the resolver answers. Outside an attempt it resolves as the wrapped resolver
 * does.
 */
public final class DeadlineDnsResolver implements DnsResolver {
  private final DnsResolver delegate;

  private DeadlineDnsResolver(DnsResolver delegate) {
    this.delegate = delegate;
  }

  /**
   * The system's resolver ({@link SystemDefaultDnsResolver}, HttpClient 5's default), bounded.
   *
   * @return the resolver
   */
  public static DeadlineDnsResolver system() {
    return wrap(SystemDefaultDnsResolver.INSTANCE);
  }

  /**
   * {@code delegate}, bounded.
   *
   * @param delegate the resolver that looks names up
   * @return the resolver
   */
  public static DeadlineDnsResolver wrap(DnsResolver delegate) {
    return new DeadlineDnsResolver(Objects.requireNonNull(delegate, "delegate"));
  }

  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    return LookupDeadline.await(host, () -> delegate.resolve(host));
  }

  @Override
  public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
    return LookupDeadline.await(host, () -> delegate.resolve(host, port));
  }

  @Override
  public String resolveCanonicalHostname(String host) throws UnknownHostException {
    return LookupDeadline.await(host, () -> delegate.resolveCanonicalHostname(host));
  }

  @Override
  public String toString() {
    return "DeadlineDnsResolver[" + delegate + "]";
  }
}
