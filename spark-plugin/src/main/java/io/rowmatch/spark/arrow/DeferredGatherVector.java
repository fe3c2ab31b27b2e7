package io.rowmatch.spark.arrow;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;

import io.rowmatch.core.arrow.ArrowCopy;

/**
 * A column whose row i is row {@code rows[i]} of a source vector (null where {@code rows[i] < 0}), gathered only
 * when something reads it. A broadcast join's build columns come out this way: the next join of a chain of
 * broadcast joins gathers just its keys, and passes the other columns on by composing row numbers (a gather of a
 * gather is one gather), so a dimension's columns are copied once, for the rows that survive every join, instead
 * of once per join (vanilla's generated code reads them from the build row when they are used).
 *
 * <p>The source must outlive every batch holding this column: a broadcast build side, released when the task ends.
 * Only flat columns (fixed or variable width) are deferred. Whoever reads it as an Arrow vector
 * ({@link #getValueVector()}) or value by value gets the gathered vector, made once from {@code allocator} and
 * released with this column; the source is never closed here.
 */
public final class DeferredGatherVector extends ReadThroughArrowColumn {
  /** Columns made and gathered in this JVM (tests check a chain of broadcast joins defers and reads late). */
  private static final AtomicLong MADE = new AtomicLong();
  private static final AtomicLong GATHERED = new AtomicLong();
  private final ValueVector source;
  private final int[] rows;
  private final int count;
  private final boolean nullRows;
  private final Field field;
  private final BufferAllocator allocator;
  private RowReadArrowColumnVector gathered;

  /**
   * Row i is {@code source[rows[i]]}, i below {@code count}; {@code rows} is kept (not copied) and every row must
   * be below the source's value count.
   */
  public DeferredGatherVector(ValueVector source, int[] rows, int count, Field field, BufferAllocator allocator) {
    super(source); // Spark's accessor over the source is never used: every read goes to the gathered vector
    if (!defers(source)) {
      throw new IllegalArgumentException("column '" + field.getName() + "' is not a flat Arrow vector: "
          + source.getClass().getSimpleName());
    }
    ArrowCopy.checkRows(rows, count, source.getValueCount(), true, field.getName());
    int signs = 0; // a negative row (null) sets the sign bit; one OR per row, so the loop vectorizes
    for (int i = 0; i < count; i++) {
      signs |= rows[i];
    }
    boolean nulls = signs < 0;
    this.source = source;
    this.rows = rows;
    this.count = count;
    this.nullRows = nulls;
    this.field = field;
    this.allocator = allocator;
    MADE.incrementAndGet();
  }

  /** Deferred columns made in this JVM so far. */
  public static long made() {
    return MADE.get();
  }

  /** Deferred columns gathered (read as vectors or value by value) in this JVM so far. */
  public static long gatheredCount() {
    return GATHERED.get();
  }

  /**
   * Whether a column of this vector may be deferred: flat (fixed width, strings, binary), so every read of it is
   * one of the accessors overridden here (Spark's geography, geometry and binary views are never such vectors).
   */
  public static boolean defers(ValueVector v) {
    return v instanceof BaseFixedWidthVector || v instanceof VarCharVector || v instanceof VarBinaryVector;
  }

  public ValueVector source() {
    return source;
  }

  /** The source row of each row (the array may be longer than {@link #count()}); negative: null. */
  public int[] rows() {
    return rows;
  }

  public int count() {
    return count;
  }

  /** The field of the gathered vector (name, type, nullable). */
  public Field field() {
    return field;
  }

  /** Whether some row is null by a negative source row (an outer join's padding). */
  public boolean hasNullRows() {
    return nullRows;
  }

  /** The source rows of this column's rows {@code at[0..n)} (negative stays null): a gather of this gather. */
  public int[] compose(int[] at, int n) {
    int[] out = new int[n];
    composeInto(at, n, out, 0);
    return out;
  }

  /** {@link #compose}, written into {@code out[from .. from + n)}. */
  public void composeInto(int[] at, int n, int[] out, int from) {
    for (int i = 0; i < n; i++) {
      int r = at[i];
      out[from + i] = r < 0 ? -1 : rows[r];
    }
  }

  /** Whether {@link #getValueVector()} has gathered the values yet (tests). */
  public boolean isGathered() {
    return gathered != null;
  }

  @Override
  ArrowColumnVector materialized() {
    if (gathered == null) {
      FieldVector v = field.createVector(allocator);
      try {
        ArrowCopy.gather(source, rows, count, v, new ArrowCopy.Scratch());
      } catch (RuntimeException | Error e) {
        v.close();
        throw e;
      }
      gathered = new RowReadArrowColumnVector(v);
      GATHERED.incrementAndGet();
    }
    return gathered;
  }

  @Override
  public void close() {
    if (gathered != null) {
      gathered.close();
      gathered = null;
    }
  }
}
