package dev.idempotency.store.dynamodb.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The size DynamoDB counts for attributes, by its published rules: a name's and a string's UTF-8
 * bytes, a binary's bytes, a number's digits at two a byte plus one, one byte for a boolean or a
 * null, three bytes plus one per element for a list or a map. For a write in a transaction it is
 * the size of what the request carries (a put's item; an update's key and values; a delete's or a
 * condition check's key): never more than the item DynamoDB counts, so a check against a limit by
 * it refuses only what DynamoDB would refuse too.
 */
public final class ItemSizes {
  private ItemSizes() {}

  /** The bytes of the item a put writes, or of what an update, delete or check carries. */
  public static long of(TransactWriteItem item) {
    if (item.put() != null) {
      return of(item.put().item());
    }
    if (item.update() != null) {
      return of(item.update().key()) + of(item.update().expressionAttributeValues());
    }
    if (item.delete() != null) {
      return of(item.delete().key());
    }
    if (item.conditionCheck() != null) {
      return of(item.conditionCheck().key());
    }
    return 0;
  }

  /** The bytes of {@code attributes}: each name and value. */
  public static long of(Map<String, AttributeValue> attributes) {
    long size = 0;
    for (Map.Entry<String, AttributeValue> a : attributes.entrySet()) {
      size += utf8(a.getKey()) + of(a.getValue());
    }
    return size;
  }

  /** The bytes of one value. */
  static long of(AttributeValue v) {
    if (v.s() != null) {
      return utf8(v.s());
    }
    if (v.n() != null) {
      return number(v.n());
    }
    if (v.b() != null) {
      return v.b().asByteArrayUnsafe().length;
    }
    if (v.bool() != null || v.nul() != null) {
      return 1;
    }
    long size = 0;
    if (v.hasSs()) {
      for (String s : v.ss()) {
        size += utf8(s);
      }
    } else if (v.hasNs()) {
      for (String n : v.ns()) {
        size += number(n);
      }
    } else if (v.hasBs()) {
      for (SdkBytes b : v.bs()) {
        size += b.asByteArrayUnsafe().length;
      }
    } else if (v.hasL()) {
      size = 3;
      for (AttributeValue e : v.l()) {
        size += 1 + of(e);
      }
    } else if (v.hasM()) {
      size = 3 + of(v.m()) + v.m().size();
    }
    return size;
  }

  private static long number(String n) {
    long digits = n.chars().filter(Character::isDigit).count();
    return (digits + 1) / 2 + 1;
  }

  private static long utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
