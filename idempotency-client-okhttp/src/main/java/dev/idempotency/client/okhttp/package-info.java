/**
 * The OkHttp integration: {@link dev.idempotency.client.okhttp.IdempotencyInterceptor}. Add it with
 * {@code OkHttpClient.Builder.addInterceptor}; name a call's key with {@code
 * Request.Builder.tag(OperationKey.class, key)}.
 */
@NullMarked
package dev.idempotency.client.okhttp;

import org.jspecify.annotations.NullMarked;
