package dev.idempotency.spring.boot.autoconfigure.internal;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;

/** A filter around the idempotency filter: its life cycle is the wrapped filter's. */
abstract class DelegatingFilter implements Filter {
  /** The wrapped filter. */
  final Filter filter;

  DelegatingFilter(Filter filter) {
    this.filter = filter;
  }

  @Override
  public final void init(FilterConfig config) throws ServletException {
    filter.init(config);
  }

  @Override
  public final void destroy() {
    filter.destroy();
  }
}
