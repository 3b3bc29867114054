package dev.idempotency.admin;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A connection per call from {@link DriverManager}: a command line runs a handful of statements and
 * exits, so a pool would only add a dependency.
 */
final class DriverManagerDataSource implements DataSource {
  private final String url;
  private final @Nullable String user;
  private final @Nullable String password;

  DriverManagerDataSource(String url, @Nullable String user, @Nullable String password) {
    this.url = url;
    this.user = user;
    this.password = password;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return user == null
        ? DriverManager.getConnection(url)
        : DriverManager.getConnection(url, user, password);
  }

  @Override
  public Connection getConnection(String username, String pass) throws SQLException {
    return DriverManager.getConnection(url, username, pass);
  }

  @Override
  public @Nullable PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {
    DriverManager.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() {
    return DriverManager.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("no parent logger");
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
