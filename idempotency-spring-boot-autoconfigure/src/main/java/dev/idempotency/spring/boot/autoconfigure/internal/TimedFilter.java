package dev.idempotency.spring.boot.autoconfigure.internal;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The idempotency filter with each request timed by the extensions (the meters' {@code
 * idempotency.request} timer), from its entry to its answer, whatever the filter decided.
 */
public final class TimedFilter extends DelegatingFilter {
  private final List<EngineExtension> extensions;

  /** {@code filter}, timed by {@code extensions}. */
  public TimedFilter(Filter filter, List<EngineExtension> extensions) {
    super(filter);
    this.extensions = List.copyOf(extensions);
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    List<Runnable> stops = new ArrayList<>(extensions.size());
    extensions.forEach(e -> stops.add(e.startRequest()));
    try {
      filter.doFilter(request, response, chain);
    } finally {
      stops.forEach(Runnable::run);
    }
  }
}
