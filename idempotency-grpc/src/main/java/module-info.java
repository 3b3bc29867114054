/**
 * The gRPC binding of the idempotency contract: {@link
 * dev.idempotency.grpc.IdempotencyServerInterceptor}, {@link
 * dev.idempotency.grpc.IdempotencyClientInterceptor} and {@link
 * dev.idempotency.grpc.GrpcRetryServiceConfig}.
 */
// gRPC, protobuf and the google.rpc protos ship as automatic modules; the interceptors are io.grpc
// types, so io.grpc is required transitively, which javac warns about for any automatic module.
@SuppressWarnings({"requires-transitive-automatic", "requires-automatic"})
module dev.idempotency.grpc {
  requires static org.jspecify;
  requires transitive dev.idempotency.core;
  requires transitive dev.idempotency.client;
  requires transitive io.grpc;
  // the error details: StatusProto, and google.rpc's Status, ErrorInfo and RetryInfo messages.
  // proto-google-common-protos names no module in its jar, so its name here is the one derived from
  // the file name (Maven warns about publishing that); it is the name every release of the jar has
  // had, and the one grpc-protobuf's users get
  requires io.grpc.protobuf;
  requires com.google.protobuf;
  requires proto.google.common.protos;

  exports dev.idempotency.grpc;
}
