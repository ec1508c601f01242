package io.tensafe.marketplace.sql;

import jakarta.persistence.Query;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Native query rows as named records: each SELECT gets a small record, declared next to it, whose
 * components are the selected columns in order; {@link #list} builds one record per row through its
 * canonical constructor.
 *
 * <p>Invariants: a row must have exactly as many columns as the record reads (one per component, a
 * nested record's own for a component that is a record), else {@link IllegalStateException} names
 * the record (a SELECT and its record drifted apart). Values convert by component type, whichever
 * JDBC type the driver chose: {@code long}/{@code int} exactly ({@link SqlValues#toLongExact}),
 * {@code double}, {@link BigDecimal}, {@link OffsetDateTime}, {@link LocalDate}, {@link UUID},
 * {@code boolean}, {@link String} (as returned, padding and all) and arrays as returned. SQL NULL
 * becomes null for a reference component and is an error for a primitive one.
 */
public final class Rows {
  private Rows() {}

  /** Every row of {@code query} as a {@code type}. */
  public static <R extends Record> List<R> list(Query query, Class<R> type) {
    List<?> rows = query.getResultList();
    List<R> records = new ArrayList<>(rows.size());
    for (Object row : rows) {
      records.add(of(row, type));
    }
    return records;
  }

  /**
   * The first row of {@code query} as a {@code type}, or empty when it returns none. The query is
   * not limited here (a limit cannot wrap {@code UPDATE … RETURNING}): select one row in SQL.
   */
  public static <R extends Record> Optional<R> first(Query query, Class<R> type) {
    List<?> rows = query.getResultList();
    return rows.isEmpty() ? Optional.empty() : Optional.of(of(rows.getFirst(), type));
  }

  /** The one row {@code query} must return, as a {@code type} (aggregates, RETURNING). */
  public static <R extends Record> R single(Query query, Class<R> type) {
    return of(query.getSingleResult(), type);
  }

  /**
   * The row {@code rows} is on as a {@code type}, its columns read as the driver returns them, for
   * the few statements sent through JDBC itself (several in one round trip).
   */
  public static <R extends Record> R current(java.sql.ResultSet rows, Class<R> type)
      throws java.sql.SQLException {
    Object[] columns = new Object[rows.getMetaData().getColumnCount()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = rows.getObject(i + 1);
    }
    return of(columns, type);
  }

  /**
   * A record's components, their types and its canonical constructor, looked up once per record
   * class (the gateway reads rows on every request); {@code width} is the columns it reads: one per
   * component, or a nested record's own width for a component that is a record.
   */
  private record Shape(String[] names, Class<?>[] types, Constructor<?> constructor, int width) {
    static Shape of(Class<?> type) {
      RecordComponent[] components = type.getRecordComponents();
      String[] names = new String[components.length];
      Class<?>[] types = new Class<?>[components.length];
      int width = 0;
      for (int i = 0; i < components.length; i++) {
        names[i] = components[i].getName();
        types[i] = components[i].getType();
        width += types[i].isRecord() ? SHAPES.get(types[i]).width() : 1;
      }
      try {
        Constructor<?> constructor = type.getDeclaredConstructor(types);
        constructor.setAccessible(true);
        return new Shape(names, types, constructor, width);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot build " + type.getSimpleName() + " from a row", e);
      }
    }
  }

  private static final ClassValue<Shape> SHAPES =
      new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
          return Shape.of(type);
        }
      };

  /**
   * One result row (an {@code Object[]}, or a bare value for one column) as a {@code type}. A
   * component that is itself a record reads its own components from the next columns, in order, and
   * is null when every one of them is NULL.
   */
  static <R extends Record> R of(Object row, Class<R> type) {
    Object[] columns = row instanceof Object[] array ? array : new Object[] {row};
    Shape shape = SHAPES.get(type);
    if (columns.length != shape.width()) {
      throw new IllegalStateException(
          type.getSimpleName()
              + " reads "
              + shape.width()
              + " columns but the row has "
              + columns.length);
    }
    return build(columns, 0, type);
  }

  /** {@code type} from {@code columns} from {@code at} on (its shape's width of them). */
  private static <R> R build(Object[] columns, int at, Class<R> type) {
    Shape shape = SHAPES.get(type);
    Object[] values = new Object[shape.types().length];
    int column = at;
    for (int i = 0; i < values.length; i++) {
      Class<?> to = shape.types()[i];
      if (to.isRecord()) {
        int width = SHAPES.get(to).width();
        boolean allNull = true;
        for (int j = column; j < column + width; j++) {
          allNull &= columns[j] == null;
        }
        values[i] = allNull ? null : build(columns, column, to);
        column += width;
      } else {
        values[i] = convert(columns[column++], to, type, shape.names()[i]);
      }
    }
    try {
      return type.cast(shape.constructor().newInstance(values));
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build " + type.getSimpleName() + " from a row", e);
    }
  }

  private static Object convert(Object value, Class<?> to, Class<?> record, String name) {
    if (value == null) {
      if (to.isPrimitive()) {
        throw new IllegalStateException(
            record.getSimpleName() + "." + name + " is a primitive but the column is NULL");
      }
      return null;
    }
    if (to == long.class || to == Long.class) {
      return SqlValues.toLongExact(value);
    }
    if (to == int.class || to == Integer.class) {
      return Math.toIntExact(SqlValues.toLongExact(value));
    }
    if (to == double.class || to == Double.class) {
      return ((Number) value).doubleValue();
    }
    if (to == boolean.class || to == Boolean.class) {
      return (Boolean) value;
    }
    if (to == BigDecimal.class) {
      return value instanceof BigDecimal d ? d : new BigDecimal(value.toString());
    }
    if (to == OffsetDateTime.class) {
      return SqlValues.toOffset(value);
    }
    if (to == LocalDate.class) {
      return SqlValues.toLocalDate(value);
    }
    if (to == String.class) {
      return value.toString();
    }
    if (!to.isInstance(value)) {
      throw new IllegalStateException(
          record.getSimpleName()
              + "."
              + name
              + " is a "
              + to.getSimpleName()
              + " but the column holds a "
              + value.getClass().getSimpleName());
    }
    return value;
  }
}
