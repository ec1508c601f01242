package io.tensafe.marketplace.sql;

import java.sql.SQLException;
import java.util.Optional;

/**
 * What a database function said when it refused its arguments with a given SQLSTATE (our functions
 * raise 22023, invalid_parameter_value, for input out of range and P0002, no_data_found, for a row
 * that does not exist), found anywhere in an exception's causes.
 */
public final class SqlRefusal {
  private SqlRefusal() {}

  /**
   * The first line of the database's words, without its {@code ERROR: } prefix, when {@code e} or
   * one of its causes is an {@link SQLException} with {@code sqlState}; else empty.
   */
  public static Optional<String> words(Throwable e, String sqlState) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sqlState.equals(sql.getSQLState())) {
        String words = String.valueOf(sql.getMessage()).replaceFirst("^ERROR: ", "");
        int newline = words.indexOf('\n');
        return Optional.of(newline < 0 ? words : words.substring(0, newline));
      }
    }
    return Optional.empty();
  }
}
