/**
 * The Apache HttpClient 5 integration: {@link
 * dev.idempotency.client.httpclient5.IdempotentRetryExec}, installed on an {@code
 * HttpClientBuilder} with {@link
 * dev.idempotency.client.httpclient5.IdempotentRetryExec#install(org.apache.hc.client5.http.impl.classic.HttpClientBuilder)}.
 */
@NullMarked
package dev.idempotency.client.httpclient5;

import org.jspecify.annotations.NullMarked;
