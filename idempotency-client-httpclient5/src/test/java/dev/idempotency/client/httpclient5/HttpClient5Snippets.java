package dev.idempotency.client.httpclient5;

import dev.idempotency.client.OperationKey;
import dev.idempotency.client.RetryPolicy;
import java.io.IOException;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;

/**
 * The Apache HttpClient 5 code of docs/client-retries.md, compiled here, where HttpClient 5 is on
 * the class path; the examples module's DocSnippetsTest holds the page's block equal to the region.
 */
final class HttpClient5Snippets {
  private HttpClient5Snippets() {}

  static String httpclient5() throws IOException {
    // tag::httpclient5[]
    CloseableHttpClient http =
        IdempotentRetryExec.of(RetryPolicy.ofDefaults())
            .installOn(
                HttpClients
                    .custom() // disableAutomaticRetries(), then this handler first in the chain
                    .setConnectionManager(
                        PoolingHttpClientConnectionManagerBuilder.create()
                            .setDnsResolver(
                                DeadlineDnsResolver.system()) // name lookups bounded by the attempt
                            .build()))
            .build();
    HttpPost confirm = new HttpPost("https://api.example.com/orders/4711/confirm");
    confirm.setEntity(new StringEntity("{\"amount\":100}", ContentType.APPLICATION_JSON));
    HttpClientContext context = HttpClientContext.create();
    context.setAttribute(
        IdempotentRetryExec.KEY_ATTRIBUTE, OperationKey.forEvent("order-confirm", "4711"));
    String body =
        http.execute(confirm, context, response -> EntityUtils.toString(response.getEntity()));
    // end::httpclient5[]
    return body;
  }
}
