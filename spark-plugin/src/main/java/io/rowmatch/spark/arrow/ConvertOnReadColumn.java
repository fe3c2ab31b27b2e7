package io.rowmatch.spark.arrow;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.spark.expression.SparkColumnGather;

/**
 * A column of a vectorized scan's batch, or some of its rows (a filter's kept rows), copied into Arrow only when
 * something reads it. A join reads its keys; the other columns of its probe side are passed on as a selection of
 * the rows it outputs ({@link #select}), or copied for them when it coalesces few rows ({@link #gather}), so a
 * selective join over a scan never copies the columns of the rows it drops
 * (vanilla's generated code reads a scan's column only where a row still needs it). Read as an Arrow vector
 * ({@link #getValueVector()}) or value by value, the whole batch is copied once into the producer's reused vector,
 * as RowmatchToArrow always did (and the kept rows gathered from it into a vector of this column's own).
 *
 * <p>Valid as long as its batch: the Spark column and the reused vector are the producer's, replaced at its next
 * batch. Closing this column releases only the kept rows' vector it made.
 */
public final class ConvertOnReadColumn extends ReadThroughArrowColumn {
  /** Row gathers straight from Spark's column in this JVM (tests check a selective join takes them). */
  private static final AtomicLong GATHERS = new AtomicLong();
  private final ColumnVector source;
  /** The source batch's rows (all copied by a whole conversion). */
  private final int sourceRows;
  /** The source rows of this column's rows, or null: all of them, in order. */
  private final int[] kept;
  private final int count;
  private final FieldVector target;
  private final ColumnVectorCopy copy;
  private final SparkColumnGather gatherer;
  private final String timeZone;
  private final BufferAllocator allocator;
  /**
   * Whether the whole source batch has been copied into the target: shared by every selection of one batch's
   * column (a filter's and the joins' above it), so the batch is copied once however many of them read it.
   */
  private final boolean[] targetFilled;
  /** The column as Arrow once read (over the target, or over the kept rows' vector); null before. */
  private ArrowColumnVector whole;
  private FieldVector keptVector;

  ConvertOnReadColumn(ColumnVector source, int rows, FieldVector target, ColumnVectorCopy copy,
      SparkColumnGather gatherer, String timeZone, BufferAllocator allocator) {
    this(source, rows, null, rows, target, new boolean[1], copy, gatherer, timeZone, allocator);
  }

  private ConvertOnReadColumn(ColumnVector source, int sourceRows, int[] kept, int count, FieldVector target,
      boolean[] targetFilled, ColumnVectorCopy copy, SparkColumnGather gatherer, String timeZone,
      BufferAllocator allocator) {
    super(target); // Spark's accessor over the target is never used: every read goes to the whole column
    this.source = source;
    this.targetFilled = targetFilled;
    this.sourceRows = sourceRows;
    this.kept = kept;
    this.count = count;
    this.target = target;
    this.copy = copy;
    this.gatherer = gatherer;
    this.timeZone = timeZone;
    this.allocator = allocator;
  }

  /** Gathers taken from Spark's column so far in this JVM. */
  public static long gathers() {
    return GATHERS.get();
  }

  /** Whether the column has been copied into Arrow. */
  public boolean isConverted() {
    return whole != null;
  }

  /** The scan's column this one reads (valid as long as its batch). */
  public ColumnVector source() {
    return source;
  }

  /**
   * The source rows of this column's rows, or null when they are all of the source's, in order; the array is
   * shared, never to be changed.
   */
  public int[] sourceRowsOrNull() {
    return kept;
  }

  /** The field of the Arrow vector (read without copying anything). */
  public Field field() {
    return target.getField();
  }

  /**
   * This column's rows {@code at[0..n)} (ascending), still not copied: a filter's kept rows. The array is kept, not
   * copied, when this column holds its batch's rows (a scan's column): the caller must not change it afterwards,
   * and may pass the same array to every column of a batch. The new column's kept rows' vector, if it is read
   * whole, comes from {@code allocator}, released when the new column is closed.
   */
  public ConvertOnReadColumn select(int[] at, int n, BufferAllocator allocator) {
    checkRows(at, n);
    return new ConvertOnReadColumn(source, sourceRows, kept == null ? at : sourceRowsOf(at, n), n, target,
        targetFilled, copy, gatherer, timeZone, allocator);
  }

  private int[] sourceRowsOf(int[] at, int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = kept[at[i]];
    }
    return out;
  }

  private void checkRows(int[] at, int n) {
    ArrowCopy.checkRows(at, n, count, false, target.getName());
  }

  /**
   * The column as Arrow, copied on the first call: a filter's kept rows, when they are few (the rule of
   * {@link #gather}), straight from Spark's column; else the whole batch into the reused vector (and the kept rows
   * gathered from it). TPC-DS q9 keeps a fifth of store_sales' rows: copying its whole dictionary-encoded decimal
   * columns took most of the time its projection spent reading them.
   */
  @Override
  ArrowColumnVector materialized() {
    if (whole == null) {
      if (kept == null) {
        fillTarget();
        whole = new ArrowColumnVector(target);
      } else {
        FieldVector v;
        if (fewRows(count) && !targetFilled[0]) {
          v = fromSpark(kept, count, target.getField(), allocator);
        } else {
          fillTarget();
          v = target.getField().createVector(allocator);
          try {
            ArrowCopy.gather(target, kept, count, v, new ArrowCopy.Scratch());
          } catch (RuntimeException | Error e) {
            v.close();
            throw e;
          }
        }
        keptVector = v;
        whole = new RowReadArrowColumnVector(v);
      }
    }
    return whole;
  }

  /** The whole source batch copied into the producer's reused vector, once per batch. */
  private void fillTarget() {
    if (!targetFilled[0]) {
      copy.copy(source, sourceRows);
      targetFilled[0] = true;
    }
  }

  /** Source rows {@code rows[0..n)} read one by one from Spark's column into a new vector named as field. */
  private FieldVector fromSpark(int[] rows, int n, Field field, BufferAllocator allocator) {
    GATHERS.incrementAndGet();
    return gatherer.gather(source, rows, n, field.getName(), field.isNullable(), timeZone, allocator);
  }

  /** Whether n rows are few enough of the source batch to read them one by one from Spark's column. */
  private boolean fewRows(int n) {
    return (long) n * 4 < 3L * sourceRows;
  }

  /**
   * Rows {@code at[0..n)} (any order, repeats allowed) as a new vector of {@code field}'s name and nullability,
   * owned by the caller. Taken from Spark's column while that reads fewer than 3/4 of the source batch's rows (the
   * fused filter's rule); else from the whole column, copied in bulk into Arrow first.
   */
  public FieldVector gather(int[] at, int n, Field field, BufferAllocator allocator) {
    checkRows(at, n);
    if (whole == null && !targetFilled[0] && fewRows(n)) {
      return fromSpark(kept == null ? at : sourceRowsOf(at, n), n, field, allocator);
    }
    FieldVector out = field.createVector(allocator);
    try {
      ArrowCopy.gather(materialized().getValueVector(), at, n, out, new ArrowCopy.Scratch());
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
    return out;
  }

  @Override
  public void close() {
    // The source column and the reused vector are the producer's; only the kept rows' vector is this column's.
    if (keptVector != null) {
      keptVector.close();
      keptVector = null;
      whole = null;
    }
  }
}
