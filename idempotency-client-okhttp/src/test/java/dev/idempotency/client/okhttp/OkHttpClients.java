package dev.idempotency.client.okhttp;

import okhttp3.OkHttpClient;

/** Test support: ends what an OkHttpClient started. */
final class OkHttpClients {
  private OkHttpClients() {}

  /** Stops the dispatcher's threads and closes the pooled connections; null is ignored. */
  static void shutDown(OkHttpClient http) {
    if (http != null) {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }
}
