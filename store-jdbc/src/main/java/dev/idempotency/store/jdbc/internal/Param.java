package dev.idempotency.store.jdbc.internal;

/**
 * The named parameters of the store's SQL, written {@code :name} in a statement's text (as the
 * constant writes itself, {@link #toString()}, where code assembles the text). {@link NamedSql}
 * turns the names into positions once, as the dialect is built, and rejects a name that is none of
 * these, so a misspelt parameter fails the store's start-up; {@link ParamValues} binds each from
 * the field its typed setter filled.
 */
enum Param {
  /** The record's scope; UTF-8 bytes where the dialect stores it so. */
  SCOPE("scope"),
  /** The record's key. */
  KEY("key"),
  /** The request's fingerprint. */
  FINGERPRINT("fp"),
  /** The engine's time, epoch nanoseconds; 0, and absent from the SQL, with the database clock. */
  NOW("now"),
  /** The lease, nanoseconds. */
  LEASE("lease"),
  /** The replay window, nanoseconds. */
  WINDOW("window"),
  /** The retention, nanoseconds. */
  RETENTION("retention"),
  /** The most rows a batch takes. */
  LIMIT("limit"),
  /** The owner's fence. */
  FENCE("fence"),
  /** The instant before which the reaper keeps a record, epoch nanoseconds. */
  KEEP_UNTIL("keepUntil"),
  /** The MySQL claim statement's random marker of its own decision (see {@link MySqlDialect}). */
  NONCE("nonce"),
  /**
   * The database clock as a phase opened, epoch nanoseconds (see {@link H2Dialect#fencedNow()}).
   */
  PINNED("pinned"),
  /** Nanoseconds since {@link #PINNED} was read. */
  ELAPSED("elapsed"),
  /** This JVM's clock at the fenced write of a phase, epoch nanoseconds. */
  WALL_NOW("wallNow"),
  /** The scope of the record a listing's page starts after; UTF-8 bytes where scopes are so. */
  AFTER_SCOPE("afterScope"),
  /** The key of the record a listing's page starts after. */
  AFTER_KEY("afterKey"),
  /** The recovery point's name. */
  RP_NAME("rpName"),
  /** The recovery point's data. */
  RP_DATA("rpData"),
  /** The stored response's status. */
  STATUS("status"),
  /** The stored response's headers, encoded by {@link ResponseCodec}. */
  HEADERS("headers"),
  /** The stored response's body. */
  BODY("body"),
  /** A list parameter ({@link #at(int)}): the scope of the {@code i}th lease a renewal names. */
  RENEWED_SCOPE("renewedScope"),
  /** A list parameter: the key of the {@code i}th lease a renewal names. */
  RENEWED_KEY("renewedKey"),
  /** A list parameter: the fence of the {@code i}th lease a renewal names. */
  RENEWED_FENCE("renewedFence"),
  /** An SQL array (PostgreSQL {@code text[]}) of the scopes of every lease a renewal names. */
  RENEWED_SCOPES("renewedScopes"),
  /** An SQL array ({@code text[]}) of the keys of every lease a renewal names, in that order. */
  RENEWED_KEYS("renewedKeys"),
  /** An SQL array ({@code int8[]}) of the fences of every lease a renewal names, in that order. */
  RENEWED_FENCES("renewedFences");

  /** The name in SQL text, after the colon. */
  final String sqlName;

  Param(String sqlName) {
    this.sqlName = sqlName;
  }

  /** The parameter as written in SQL text: {@code :name}. */
  @Override
  public String toString() {
    return ":" + sqlName;
  }

  /** The {@code i}th element of a list parameter, as written in SQL text: {@code :name[i]}. */
  String at(int i) {
    return this + "[" + i + "]";
  }

  /**
   * The parameter written {@code :name} in SQL text.
   *
   * @throws IllegalArgumentException if there is none of that name
   */
  static Param named(String name) {
    for (Param p : values()) {
      if (p.sqlName.equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException("no SQL parameter is called :" + name);
  }
}
