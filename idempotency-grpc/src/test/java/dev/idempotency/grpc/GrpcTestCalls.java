package dev.idempotency.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Calls at the byte level and the assertions on the binding's refusals. */
final class GrpcTestCalls {
  private GrpcTestCalls() {}

  static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  /** PaymentService/Charge with bytes in and out: what the wire carries, unparsed. */
  static final MethodDescriptor<byte[], byte[]> RAW_CHARGE =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("idempotency.test.PaymentService/Charge")
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  /** An answer at the byte level: the message bytes, the headers and the trailers. */
  record RawAnswer(byte[] message, Metadata headers, Metadata trailers) {}

  static RawAnswer rawCharge(Channel channel, Metadata headers, byte[] request) {
    AtomicReference<Metadata> received = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    Channel intercepted =
        ClientInterceptors.intercept(
            channel,
            MetadataUtils.newAttachHeadersInterceptor(headers),
            MetadataUtils.newCaptureMetadataInterceptor(received, trailers));
    byte[] answer =
        ClientCalls.blockingUnaryCall(intercepted, RAW_CHARGE, CallOptions.DEFAULT, request);
    return new RawAnswer(answer, received.get(), trailers.get());
  }

  /** The refusal a call got, with its details decoded. */
  record Refused(Status status, Metadata trailers, ErrorInfo info, RetryInfo retry) {
    String reason() {
      return info.getReason();
    }

    Duration retryDelay() {
      return Duration.ofSeconds(
          retry.getRetryDelay().getSeconds(), retry.getRetryDelay().getNanos());
    }
  }

  /** Runs {@code call}, expects a StatusRuntimeException, and decodes its details. */
  static Refused refused(ThrowingCallable call) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call);
    assertThat(e).as("the call was refused").isNotNull();
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    ErrorInfo info = ErrorInfo.getDefaultInstance();
    RetryInfo retry = RetryInfo.getDefaultInstance();
    if (details != null) {
      try {
        for (com.google.protobuf.Any any : details.getDetailsList()) {
          if (any.is(ErrorInfo.class)) {
            info = any.unpack(ErrorInfo.class);
          } else if (any.is(RetryInfo.class)) {
            retry = any.unpack(RetryInfo.class);
          }
        }
      } catch (InvalidProtocolBufferException x) {
        throw new AssertionError(x);
      }
    }
    Metadata trailers = e.getTrailers() != null ? e.getTrailers() : new Metadata();
    return new Refused(e.getStatus(), trailers, info, retry);
  }

  /** Asserts the binding's refusal for {@code reason}: code, ErrorInfo, plain trailer. */
  static Refused assertRefusal(ThrowingCallable call, IdempotencyErrorReason reason) {
    Refused r = refused(call);
    assertThat(r.status().getCode()).isEqualTo(reason.code());
    assertThat(r.reason()).isEqualTo(reason.name());
    assertThat(r.info().getDomain()).isEqualTo(IdempotencyErrorReason.DOMAIN);
    assertThat(r.trailers().get(GrpcIdempotencyMetadata.ERROR_REASON_TRAILER))
        .isEqualTo(reason.name());
    return r;
  }
}
