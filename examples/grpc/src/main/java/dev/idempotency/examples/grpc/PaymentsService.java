package dev.idempotency.examples.grpc;

import dev.idempotency.examples.grpc.shop.CreatePaymentRequest;
import dev.idempotency.examples.grpc.shop.GetPaymentRequest;
import dev.idempotency.examples.grpc.shop.Payment;
import dev.idempotency.examples.grpc.shop.PaymentServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The service as an application writes it, with no idempotency code in it: {@code CreatePayment}
 * charges the card and records the payment, {@code GetPayment} reads it. The interceptors in front
 * of it make a retried {@code CreatePayment} safe.
 */
final class PaymentsService extends PaymentServiceGrpc.PaymentServiceImplBase {
  private final CardCharges cards;
  private final Map<String, Payment> payments = new ConcurrentHashMap<>();

  PaymentsService(CardCharges cards) {
    this.cards = cards;
  }

  @Override
  public void createPayment(CreatePaymentRequest request, StreamObserver<Payment> answer) {
    if (request.getPaymentId().isEmpty() || request.getAmountCents() <= 0) {
      answer.onError(
          Status.INVALID_ARGUMENT
              .withDescription("payment_id and a positive amount_cents are required")
              .asRuntimeException());
      return;
    }
    Payment payment =
        Payment.newBuilder()
            .setPaymentId(request.getPaymentId())
            .setAmountCents(request.getAmountCents())
            .setAuthorization(cards.charge(request.getPaymentId()))
            .build();
    payments.put(MerchantAuth.MERCHANT.get() + "/" + request.getPaymentId(), payment);
    answer.onNext(payment);
    answer.onCompleted();
  }

  @Override
  public void getPayment(GetPaymentRequest request, StreamObserver<Payment> answer) {
    Payment payment = payments.get(MerchantAuth.MERCHANT.get() + "/" + request.getPaymentId());
    if (payment == null) {
      answer.onError(Status.NOT_FOUND.withDescription(request.getPaymentId()).asRuntimeException());
      return;
    }
    answer.onNext(payment);
    answer.onCompleted();
  }
}
