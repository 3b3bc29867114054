package dev.idempotency.client.httpclient5;

import java.io.IOException;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.ParseException;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/** Test support: what a test reads of a response, taken while the client still holds it. */
record Exchange(int code, String body, String replayed) {
  static Exchange of(ClassicHttpResponse response) throws IOException {
    try {
      Header replayed = response.getFirstHeader("Idempotent-Replayed");
      return new Exchange(
          response.getCode(),
          response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity()),
          replayed == null ? null : replayed.getValue());
    } catch (ParseException e) {
      throw new IOException(e);
    }
  }
}
