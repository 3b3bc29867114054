package dev.idempotency.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.StoredResponse;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The stored form of a gRPC answer, and back. */
class StoredCallCodecTest {
  private static final Metadata.Key<String> REGION =
      Metadata.Key.of("x-region", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> TRACE =
      Metadata.Key.of("x-trace", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Metadata.Key<byte[]> TOKEN =
      Metadata.Key.of("x-token-bin", Metadata.BINARY_BYTE_MARSHALLER);

  @Test
  void anAnswerRoundTripsWithItsStoredMetadataOnly() {
    Metadata headers = new Metadata();
    headers.put(REGION, "eu-1");
    headers.put(TRACE, "t-1");
    Metadata trailers = new Metadata();
    trailers.put(REGION, "eu-1");
    trailers.put(REGION, "eu-2");
    trailers.put(DETAILS, new byte[] {0, 1, (byte) 0xFF});
    trailers.put(TOKEN, new byte[] {7});
    byte[] message = {10, 3, 'a', 'b', 'c'};

    StoredResponse stored =
        StoredCallCodec.encode(
            new CapturedCall(headers, message, Status.OK, trailers),
            Set.of("x-region", "x-token-bin"));
    CapturedCall back = StoredCallCodec.decode(stored);

    assertThat(stored.status()).isEqualTo(200);
    assertThat(stored.body()).isEqualTo(message);
    assertThat(back.message()).isEqualTo(message);
    assertThat(back.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(back.headers().getAll(REGION)).containsExactly("eu-1");
    assertThat(back.headers().get(TRACE)).isNull();
    assertThat(back.trailers().getAll(REGION)).containsExactly("eu-1", "eu-2");
    assertThat(back.trailers().get(DETAILS)).containsExactly(0, 1, 0xFF);
    assertThat(back.trailers().get(TOKEN)).containsExactly(7);
  }

  @Test
  void aTrailersOnlyFailureKeepsItsCodeAndMessageAndHasNoHeadersNorMessage() {
    Status declined = Status.FAILED_PRECONDITION.withDescription("declined: 100 % sure\nreally é");
    StoredResponse stored =
        StoredCallCodec.encode(new CapturedCall(null, null, declined, new Metadata()), Set.of());
    CapturedCall back = StoredCallCodec.decode(stored);

    assertThat(stored.status()).isEqualTo(400);
    assertThat(back.headers()).isNull();
    assertThat(back.message()).isNull();
    assertThat(back.status().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(back.status().getDescription()).isEqualTo("declined: 100 % sure\nreally é");
  }

  @Test
  void anEmptyMessageIsAMessage() {
    CapturedCall back =
        StoredCallCodec.decode(
            StoredCallCodec.encode(
                new CapturedCall(new Metadata(), new byte[0], Status.OK, new Metadata()),
                Set.of()));
    assertThat(back.message()).isEmpty();
  }

  @Test
  void theStoredStatusIsGooglesHttpMappingSoOnePolicyJudgesBothBindings() {
    assertThat(StoredCallCodec.httpStatusOf(Status.Code.RESOURCE_EXHAUSTED)).isEqualTo(429);
    assertThat(StoredCallCodec.httpStatusOf(Status.Code.UNAVAILABLE)).isEqualTo(503);
    assertThat(StoredCallCodec.httpStatusOf(Status.Code.NOT_FOUND)).isEqualTo(404);
    assertThat(StoredCallCodec.httpStatusOf(Status.Code.ALREADY_EXISTS)).isEqualTo(409);
    assertThat(StoredCallCodec.httpStatusOf(Status.Code.CANCELLED)).isEqualTo(499);
    assertThat(StoredCallCodec.httpStatusOf(Status.Code.DATA_LOSS)).isEqualTo(500);
  }

  @Test
  void aRecordStoredByAnotherBindingIsRefusedNotMisread() {
    assertThatThrownBy(() -> StoredCallCodec.decode(StoredResponse.ofUtf8(200, "{}")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not stored by the gRPC binding");
  }
}
