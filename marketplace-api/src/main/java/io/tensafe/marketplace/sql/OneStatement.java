package io.tensafe.marketplace.sql;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.Query;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One SQL statement run where its caller is: in the caller's transaction when there is one, else
 * alone on a pooled connection in autocommit, which costs one database round trip (no BEGIN, no
 * COMMIT: what the hot path's single-call functions are for, ADR 0040). The statement is atomic
 * either way. Parameters are JDBC's {@code ?}, bound in order; cast each in the SQL ({@code CAST(?
 * AS bigint)}) so that a null has its type. A {@code UUID[]} binds as {@code uuid[]}. A failure of
 * the autocommit path is a {@link PersistenceException} whose cause is the driver's {@link
 * SQLException}, as Hibernate's is, so {@link SqlRefusal} reads either.
 */
@ApplicationScoped
public class OneStatement {
  @Inject EntityManager em;
  @Inject AgroalDataSource dataSource;
  @Inject TransactionManager transactions;

  /** Every row of {@code sql} as a {@code type} ({@link Rows}' rules). */
  public <R extends Record> List<R> rows(String sql, Class<R> type, Object... args) {
    if (inTransaction()) {
      Query query = em.createNativeQuery(numbered(sql));
      for (int i = 0; i < args.length; i++) {
        query.setParameter(i + 1, args[i]);
      }
      return Rows.list(query, type);
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      bind(c, s, args);
      List<R> out = new ArrayList<>();
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          out.add(Rows.current(r, type));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new PersistenceException("the statement failed: " + e.getMessage(), e);
    }
  }

  /** Runs the update {@code sql}; the rows it changed. */
  public int update(String sql, Object... args) {
    if (inTransaction()) {
      Query query = em.createNativeQuery(numbered(sql));
      for (int i = 0; i < args.length; i++) {
        query.setParameter(i + 1, args[i]);
      }
      return query.executeUpdate();
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      bind(c, s, args);
      return s.executeUpdate();
    } catch (SQLException e) {
      throw new PersistenceException("the statement failed: " + e.getMessage(), e);
    }
  }

  private static void bind(Connection c, PreparedStatement s, Object[] args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      s.setObject(i + 1, args[i] instanceof UUID[] ids ? c.createArrayOf("uuid", ids) : args[i]);
    }
  }

  /** Work on a JDBC connection, as {@link #withConnection} gives it. */
  @FunctionalInterface
  public interface ConnectionWork<T> {
    T run(Connection connection) throws SQLException;
  }

  /**
   * Runs {@code work} on the caller's transaction's connection when there is one, else on a pooled
   * connection in autocommit (each statement, or each batch of statements sent before one {@code
   * Sync}, is its own transaction). {@code work} must not close, commit or change the connection.
   */
  public <T> T withConnection(ConnectionWork<T> work) {
    if (inTransaction()) {
      return em.unwrap(org.hibernate.Session.class).doReturningWork(work::run);
    }
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw new PersistenceException("the statement failed: " + e.getMessage(), e);
    }
  }

  /** The one row of {@code sql}. */
  public <R extends Record> R single(String sql, Class<R> type, Object... args) {
    List<R> rows = rows(sql, type, args);
    if (rows.size() != 1) {
      throw new IllegalStateException(
          "expected one row of " + type.getSimpleName() + ", got " + rows.size());
    }
    return rows.getFirst();
  }

  private boolean inTransaction() {
    try {
      return transactions.getStatus() != Status.STATUS_NO_TRANSACTION;
    } catch (SystemException e) {
      throw new IllegalStateException("the transaction manager cannot say", e);
    }
  }

  /** {@code sql} with its JDBC {@code ?} parameters numbered ({@code ?1}, {@code ?2}, ...). */
  private static String numbered(String sql) {
    StringBuilder b = new StringBuilder(sql.length() + 16);
    int n = 0;
    for (char ch : sql.toCharArray()) {
      b.append(ch);
      if (ch == '?') {
        b.append(++n);
      }
    }
    return b.toString();
  }
}
