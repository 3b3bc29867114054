package dev.idempotency.store.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The store's Lua scripts, each the shared prelude followed by its own body (resources beside this
 * class). Each is called by its SHA-1 ({@code EVALSHA}); a server that does not have it (a restart,
 * a failover, a new Cluster node, {@code SCRIPT FLUSH}) answers {@code NOSCRIPT}, and the store
 * then sends the body once ({@code EVAL}), which also caches it there.
 */
public enum Script {
  /** The claim. */
  CLAIM("claim.lua"),
  /** Heartbeats of many records of one shard. */
  RENEW("renew.lua"),
  /** A recovery point and a new lease. */
  CHECKPOINT("checkpoint.lua"),
  /** The completion. */
  COMPLETE("complete.lua"),
  /** The release. */
  RELEASE("release.lua"),
  /** A person's extension of a record's retention. */
  EXTEND("extend.lua"),
  /** The withdrawal of a claim the store reports as failed. */
  WITHDRAW("withdraw.lua"),
  /** Records read on the primary: lookup and the abandoned records' snapshots. */
  RECORDS("records.lua"),
  /** The members of a shard's indexes due by a cutoff. */
  DUE("due.lua"),
  /** One reaper batch over candidates of one shard. */
  REAP("reap.lua"),
  /** One step of a listing over one index of one shard. */
  LIST("list.lua");

  private final String body;
  private final String sha;

  Script(String resource) {
    this.body = read("prelude.lua") + "\n" + read(resource);
    this.sha = sha1(body.getBytes(StandardCharsets.UTF_8));
  }

  /** The script's text, as sent with {@code EVAL}. */
  byte[] body() {
    return body.getBytes(StandardCharsets.UTF_8);
  }

  /** Its SHA-1 in lower-case hex, as {@code EVALSHA} names it. */
  String sha() {
    return sha;
  }

  private static String read(String resource) {
    try (InputStream in = Script.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing script resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-1", e);
    }
  }
}
