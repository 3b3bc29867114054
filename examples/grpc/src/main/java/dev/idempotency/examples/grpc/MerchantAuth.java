package dev.idempotency.examples.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * The service's authentication, as an application has its own: {@code authorization: Bearer
 * merchant-…} puts the merchant in the call's {@link Context}, where the idempotency interceptor's
 * scope resolver reads it, so that two merchants' keys never meet. A demo's stand-in for real
 * credentials: the token is the merchant's name.
 */
final class MerchantAuth implements ServerInterceptor {
  /** The authenticated merchant. */
  static final Context.Key<String> MERCHANT = Context.key("shop.merchant");

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final String BEARER = "Bearer merchant-";

  /** The metadata a merchant's calls carry. */
  static Metadata credentials(String merchant) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + merchant);
    return headers;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String authorization = headers.get(AUTHORIZATION);
    if (authorization == null
        || !authorization.startsWith(BEARER)
        || authorization.length() == BEARER.length()) {
      call.close(
          Status.UNAUTHENTICATED.withDescription("authorization: Bearer merchant-<name> expected"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    String merchant = authorization.substring("Bearer ".length());
    return Contexts.interceptCall(
        Context.current().withValue(MERCHANT, merchant), call, headers, next);
  }
}
