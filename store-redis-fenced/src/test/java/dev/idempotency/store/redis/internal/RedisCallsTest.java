package dev.idempotency.store.redis.internal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * How a script's failure is reported, for the failures a live server cannot be made to produce
 * here: the script's future as Lettuce completes it, handed out by stand-in commands. A command
 * Lettuce cancels (it cancels the commands in flight when it resets a connection, which its public
 * API no longer offers to do) and the replies of a server that cannot write are {@link
 * StoreUnavailableException}; any other refusal is {@link KeyStoreException}.
 */
class RedisCallsTest {
  @Test
  void aCommandLettuceCancelledIsUnavailable() {
    assertThatThrownBy(() -> run(f -> f.cancel(false)))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("cancelled");
  }

  @Test
  void misconfAndUnblockedAreUnavailable() {
    for (String reply :
        List.of(
            "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist"
                + " to disk",
            "UNBLOCKED client unblocked via CLIENT UNBLOCK",
            "READONLY You can't write against a read only replica.")) {
      assertThatThrownBy(
              () -> run(f -> f.completeExceptionally(new RedisCommandExecutionException(reply))))
          .as(reply)
          .isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void anyOtherRefusalIsAKeyStoreException() {
    assertThatThrownBy(
            () ->
                run(
                    f ->
                        f.completeExceptionally(
                            new RedisCommandExecutionException(
                                "WRONGTYPE Operation against a key"))))
        .isInstanceOf(KeyStoreException.class)
        .isNotInstanceOf(StoreUnavailableException.class);
  }

  /** Runs a script whose future {@code outcome} completes. */
  private static void run(Consumer<AsyncCommand<byte[], byte[], List<Object>>> outcome) {
    AsyncCommand<byte[], byte[], List<Object>> future =
        new AsyncCommand<>(
            new Command<>(CommandType.EVALSHA, new NestedMultiOutput<>(ByteArrayCodec.INSTANCE)));
    outcome.accept(future);
    @SuppressWarnings("unchecked")
    RedisClusterAsyncCommands<byte[], byte[]> commands =
        (RedisClusterAsyncCommands<byte[], byte[]>)
            Proxy.newProxyInstance(
                RedisCallsTest.class.getClassLoader(),
                new Class<?>[] {RedisClusterAsyncCommands.class},
                (proxy, method, args) -> future);
    new RedisCalls(commands, null, Duration.ofSeconds(1))
        .script("claim of t/k", Script.CLAIM, new byte[][] {{'k'}}, new byte[0]);
  }
}
