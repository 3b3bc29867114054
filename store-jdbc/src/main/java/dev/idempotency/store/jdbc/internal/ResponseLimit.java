package dev.idempotency.store.jdbc.internal;

import dev.idempotency.KeyStoreException;
import dev.idempotency.StoredResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * The largest response one record keeps ({@code KeyStore.maxResponseBytes()}), per database, and
 * the check a completion passes before its statement is sent. Immutable and thread-safe.
 *
 * <ul>
 *   <li>MySQL/MariaDB: a statement is one packet of at most {@code max_allowed_packet} bytes (read
 *       from the server once, at build), and a client-side prepared statement (both drivers'
 *       default) sends a binary value as an escaped literal, up to two bytes a byte (a body of zero
 *       bytes or quotes; measured at the 16 MiB default: a body of 8,388,504 bytes fits with the
 *       MariaDB driver, 8,388,514 with Connector/J). So half the packet, less {@link #RESERVE}.
 *   <li>PostgreSQL: a {@code bytea} value, and the protocol message that binds it, hold at most 1
 *       GiB; less {@link #RESERVE}.
 *   <li>H2: the headers column ({@code VARBINARY}) holds at most 1,000,000,000 bytes, the body a
 *       {@code BLOB}; less {@link #RESERVE}.
 * </ul>
 */
public final class ResponseLimit {
  /**
   * Room every limit leaves for what {@link StoredResponse#size()} does not count: the headers'
   * encoding (a few bytes per header and value, see {@link ResponseCodec}) and the completion
   * statement's text and other values.
   */
  static final long RESERVE = 64 * 1024;

  /**
   * What a completion's packet holds besides its response, with room to spare: the statement's text
   * and its other values, each escaped (a scope of up to 1,020 bytes, a key of up to 255, the
   * fence).
   */
  static final long STATEMENT_ALLOWANCE = 8 * 1024;

  /** PostgreSQL's largest {@code bytea} value and protocol message: 1 GiB. */
  static final long POSTGRES_VALUE_MAX = (1L << 30) - 1;

  /** H2's largest {@code VARBINARY}. */
  static final long H2_VARBINARY_MAX = 1_000_000_000L;

  /** The {@code max_allowed_packet} assumed without a connection: MariaDB's default, 16 MiB. */
  static final long ASSUMED_PACKET = 16L << 20;

  /** MySQL's {@code MEDIUMBLOB}, the headers column. */
  static final long MYSQL_MEDIUMBLOB_MAX = (1L << 24) - 1;

  private final long limit;
  private final String source;
  private final long headersMax;
  private final long wireMax;
  private final int wireFactor;
  private final String wireName;

  private ResponseLimit(
      long limit, String source, long headersMax, long wireMax, int wireFactor, String wireName) {
    this.limit = limit;
    this.source = source;
    this.headersMax = headersMax;
    this.wireMax = wireMax;
    this.wireFactor = wireFactor;
    this.wireName = wireName;
  }

  /**
   * The limit of the database of dialect {@code dialect} (a {@code Dialect} constant's name).
   *
   * @param c a connection to read the server's setting from (MySQL)
   * @param configured the builder's {@code maxResponseBytes}, or 0 for the database's limit
   * @throws KeyStoreException if {@code configured} is more than the database keeps
   * @throws SQLException if the server's setting cannot be read
   */
  public static ResponseLimit of(String dialect, Connection c, long configured)
      throws SQLException {
    return of(dialect, dialect.equals("MYSQL") ? maxAllowedPacket(c) : 0, configured);
  }

  /**
   * The limit of a store built without a connection: the database's, or {@code configured}; for
   * MySQL, whose limit is the server's setting, MariaDB's default {@code max_allowed_packet} is
   * assumed ({@link #ASSUMED_PACKET}). A server set lower refuses a larger statement itself (a
   * KeyStoreException, nothing written).
   *
   * @param configured the builder's {@code maxResponseBytes}, or 0 for the database's limit
   * @throws KeyStoreException if {@code configured} is more than the database keeps
   */
  public static ResponseLimit withoutConnection(String dialect, long configured) {
    if (!dialect.equals("MYSQL")) {
      return of(dialect, 0, configured);
    }
    if (configured > 0) {
      // the server's packet is unknown: the configured limit is trusted
      return new ResponseLimit(
          configured,
          "set by maxResponseBytes",
          MYSQL_MEDIUMBLOB_MAX,
          Long.MAX_VALUE,
          2,
          "max_allowed_packet");
    }
    return mysql(
        ASSUMED_PACKET,
        "built without a connection, the store assumes MariaDB's default max_allowed_packet of"
            + " 16 MiB; set maxResponseBytes for the server's");
  }

  /**
   * @param packet MySQL's {@code max_allowed_packet} (0 for the other databases)
   */
  static ResponseLimit of(String dialect, long packet, long configured) {
    ResponseLimit database =
        switch (dialect) {
          case "POSTGRESQL" ->
              new ResponseLimit(
                  POSTGRES_VALUE_MAX - RESERVE,
                  "PostgreSQL keeps a bytea value of up to 1 GiB",
                  POSTGRES_VALUE_MAX,
                  POSTGRES_VALUE_MAX,
                  1,
                  "PostgreSQL's 1 GiB message limit");
          case "H2" ->
              new ResponseLimit(
                  H2_VARBINARY_MAX - RESERVE,
                  "H2 keeps a VARBINARY of up to 1,000,000,000 bytes",
                  H2_VARBINARY_MAX,
                  Long.MAX_VALUE,
                  1,
                  "");
          case "MYSQL" -> mysql(packet, "the server's max_allowed_packet is " + packet + " bytes");
          default -> throw new IllegalArgumentException("unknown dialect " + dialect);
        };
    if (configured <= 0) {
      return database;
    }
    if (configured > database.limit) {
      throw new KeyStoreException(
          "maxResponseBytes("
              + configured
              + ") is more than this database keeps in one record: "
              + database.limit
              + " bytes ("
              + database.source
              + "). Set maxResponseBytes to at most "
              + database.limit
              + (dialect.equals("MYSQL") ? ", or raise the server's max_allowed_packet" : "")
              + ".");
    }
    return new ResponseLimit(
        configured,
        "set by maxResponseBytes",
        database.headersMax,
        database.wireMax,
        database.wireFactor,
        database.wireName);
  }

  /**
   * MySQL/MariaDB with this {@code max_allowed_packet}.
   *
   * @param source where the packet comes from, for messages
   */
  static ResponseLimit mysql(long packet, String source) {
    long limit = (packet - RESERVE) / 2;
    if (limit < 1024) {
      throw new KeyStoreException(
          "the MySQL server's max_allowed_packet is "
              + packet
              + " bytes: a response of even 1 KiB may not fit. Raise max_allowed_packet (the"
              + " default is 16 MiB on MariaDB, 64 MiB on MySQL 8).");
    }
    return new ResponseLimit(
        limit,
        source + ", and the driver sends a binary value escaped, up to two bytes a byte",
        MYSQL_MEDIUMBLOB_MAX,
        packet,
        2,
        "the server's max_allowed_packet (" + packet + " bytes)");
  }

  private static long maxAllowedPacket(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The limit: {@code KeyStore.maxResponseBytes()}. */
  public long bytes() {
    return limit;
  }

  /**
   * Refuses a response this store cannot keep, before anything is sent: larger than {@link
   * #bytes()}, or (many tiny headers, whose encoding {@code size()} does not count) whose encoded
   * headers or whole statement would not fit.
   *
   * @param what the call, for the message ("complete of acct-1/k1")
   * @throws KeyStoreException naming the limit
   */
  public void check(StoredResponse response, String what) {
    long size = response.size();
    if (size > limit) {
      throw new KeyStoreException(
          what
              + ": the response ("
              + size
              + " bytes, StoredResponse.size()) is larger than this store keeps:"
              + " maxResponseBytes() = "
              + limit
              + " bytes ("
              + source
              + "); nothing was written");
    }
    long headers = size - response.bodyLength() + encodingOverhead(response.headers());
    if (headers > headersMax) {
      throw new KeyStoreException(
          what
              + ": the response's headers take "
              + headers
              + " bytes encoded, more than the column keeps ("
              + headersMax
              + " bytes); nothing was written");
    }
    long wire = wireFactor * (headers + response.bodyLength()) + STATEMENT_ALLOWANCE;
    if (wire > wireMax) {
      throw new KeyStoreException(
          what
              + ": the completion would take up to "
              + wire
              + " bytes, more than "
              + wireName
              + "; nothing was written");
    }
  }

  /** What {@link ResponseCodec#encodeHeaders} adds to the names' and values' bytes. */
  private static long encodingOverhead(Map<String, List<String>> headers) {
    long overhead = 1 + 4; // version, count
    for (List<String> values : headers.values()) {
      overhead += 4 + 4 + 4L * values.size(); // name length, value count, each value's length
    }
    return overhead;
  }
}
