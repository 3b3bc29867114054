package dev.idempotency.grpc.internal;

import com.google.protobuf.DescriptorProtos.MethodOptions.IdempotencyLevel;
import dev.idempotency.grpc.GrpcKeyRequirement;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;

/** What a method's proto declares of its side effects, as a key requirement. */
public final class DeclaredLevels {
  private DeclaredLevels() {}

  /**
   * {@code NO_SIDE_EFFECTS} → {@link GrpcKeyRequirement#NONE}, {@code IDEMPOTENT} → {@link
   * GrpcKeyRequirement#OPTIONAL}, anything else → {@link GrpcKeyRequirement#REQUIRED}: read from
   * the descriptor's safe and idempotent flags, which protoc-gen-grpc-java sets from the level,
   * else from the proto descriptor every protobuf stub attaches.
   *
   * @param method the method
   * @return its declared requirement
   */
  public static GrpcKeyRequirement declared(MethodDescriptor<?, ?> method) {
    if (method.isSafe()) {
      return GrpcKeyRequirement.NONE;
    }
    if (method.isIdempotent()) {
      return GrpcKeyRequirement.OPTIONAL;
    }
    if (method.getSchemaDescriptor() instanceof ProtoMethodDescriptorSupplier proto) {
      IdempotencyLevel level = proto.getMethodDescriptor().getOptions().getIdempotencyLevel();
      if (level == IdempotencyLevel.NO_SIDE_EFFECTS) {
        return GrpcKeyRequirement.NONE;
      }
      if (level == IdempotencyLevel.IDEMPOTENT) {
        return GrpcKeyRequirement.OPTIONAL;
      }
    }
    return GrpcKeyRequirement.REQUIRED;
  }
}
