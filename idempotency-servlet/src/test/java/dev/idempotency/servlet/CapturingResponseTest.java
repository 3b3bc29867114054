package dev.idempotency.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** The charset the captured response reports, read from a Content-Type the application set. */
class CapturingResponseTest {
  /**
   * The capture never forwards to the real response, so a response that refuses every call stands
   * in for it.
   */
  private static CapturingResponse capture() {
    HttpServletResponse refusing =
        (HttpServletResponse)
            Proxy.newProxyInstance(
                HttpServletResponse.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class},
                (proxy, method, args) -> {
                  throw new AssertionError(
                      "the capture forwarded " + method.getName() + " to the real response");
                });
    return new CapturingResponse(refusing);
  }

  @Test
  void charsetParameterIsReadUpToTheNextParameter() {
    CapturingResponse response = capture();
    response.setContentType("text/plain; charset=\"UTF-16\"; format=flowed");
    assertThat(response.getCharacterEncoding()).isEqualTo("UTF-16");
  }

  @Test
  void anEmptyCharsetParameterReadsAsEmptyWhereverItStands() {
    CapturingResponse last = capture();
    last.setContentType("text/plain;charset=");
    CapturingResponse beforeAnother = capture();
    beforeAnother.setContentType("text/plain;charset=;");
    assertThat(last.getCharacterEncoding()).isEmpty();
    assertThat(beforeAnother.getCharacterEncoding()).isEmpty();
  }
}
