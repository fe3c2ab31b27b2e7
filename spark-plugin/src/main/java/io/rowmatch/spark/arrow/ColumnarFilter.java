package io.rowmatch.spark.arrow;

import java.util.Arrays;
import java.util.Iterator;
import java.util.function.IntFunction;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.spark.expression.ColumnarExpressions;
import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * The executor side of RowmatchFilterExec: keeps the rows of Arrow batches where every conjunct holds (the
 * columnar expression kernels, each conjunct evaluated where the earlier ones held, as Spark's generated filter).
 * A batch whose every row is kept (the usual case for inferred isnotnull filters) passes through untouched;
 * otherwise the kept rows are gathered into new vectors, which stay valid until the next batch is asked for.
 */
public final class ColumnarFilter implements Iterator<ColumnarBatch>, AutoCloseable {
  private final Iterator<ColumnarBatch> input;
  private final ColumnarExpressions conjuncts;
  private final BufferAllocator allocator;
  private final long memoryLimit;
  private ColumnVector[] held = new ColumnVector[0];
  private int[] rows = new int[0];
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();
  /** For Spark's own (non-Arrow) batches: their schema, time zone and copy into Arrow; null otherwise. */
  private final StructType sparkSchema;
  private final String timeZone;
  private ColumnarToArrowBatches toArrow;
  private ColumnarBatch pending;

  private ColumnarFilter(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts, BufferAllocator allocator,
      long memoryLimit, StructType sparkSchema, String timeZone) {
    this.input = input;
    this.conjuncts = conjuncts;
    this.allocator = allocator;
    this.memoryLimit = memoryLimit;
    this.sparkSchema = sparkSchema;
    this.timeZone = timeZone;
  }

  public static Iterator<ColumnarBatch> run(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts,
      ArrowSettings settings, TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new ColumnarFilter(input, conjuncts, allocator, settings.memoryLimit, null, null));
  }

  /**
   * The filter fused with the copy into Arrow before it (RowmatchToArrow over a vectorized scan): the conjuncts
   * read Spark's column vectors directly (the columns they reference, the rows still undecided), and only the
   * rows kept are copied into Arrow, when something reads them ({@link ConvertOnReadColumn}), so the columns only
   * the filter reads and the rows it drops are never copied. Arrow batches are filtered as by {@link #run}.
   */
  public static Iterator<ColumnarBatch> runOverSpark(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts,
      StructType schema, ArrowSettings settings, TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new ColumnarFilter(input, conjuncts, allocator, settings.memoryLimit, schema,
            settings.timeZone));
  }

  /** For tests: a filter drawing from the given allocator. */
  static ColumnarFilter over(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts, BufferAllocator allocator) {
    return new ColumnarFilter(input, conjuncts, allocator, Long.MAX_VALUE, null, null);
  }

  /** For tests: the fused filter over Spark batches of the schema, drawing from the given allocator. */
  static ColumnarFilter overSpark(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts, StructType schema,
      BufferAllocator allocator) {
    return new ColumnarFilter(input, conjuncts, allocator, Long.MAX_VALUE, schema, "UTC");
  }

  @Override
  public boolean hasNext() {
    boolean more = input.hasNext();
    if (!more) {
      close();
    }
    return more;
  }

  @Override
  public ColumnarBatch next() {
    ColumnarBatch batch = input.next();
    release();
    if (sparkSchema != null && !ColumnarToArrowBatches.isArrow(batch)) {
      Object spark = conjuncts.openSpark(batch);
      if (spark != null) {
        return fromSpark(batch, spark);
      }
      batch = copied(batch); // a column of another type than planned: into Arrow first, as RowmatchToArrow
    }
    int n = batch.numRows();
    int count = keptRows(conjuncts.select(conjuncts.open(batch)));
    if (count == n) {
      return batch;
    }
    return gather(batch, count);
  }

  /** The rows set in keep into {@link #rows}; their count. */
  private int keptRows(long[] keep) {
    int count = 0;
    for (long w : keep) {
      count += Long.bitCount(w);
    }
    if (rows.length < count) {
      rows = new int[count];
    }
    int k = 0;
    for (int w = 0; w < keep.length; w++) {
      for (long m = keep[w]; m != 0; m &= m - 1) {
        rows[k++] = (w << 6) + Long.numberOfTrailingZeros(m);
      }
    }
    return count;
  }

  /** The whole Spark batch copied into the reused Arrow vectors (valid until the next batch). */
  private ColumnarBatch copied(ColumnarBatch batch) {
    if (toArrow == null) {
      Iterator<ColumnarBatch> one = new Iterator<>() {
        @Override
        public boolean hasNext() {
          return pending != null;
        }

        @Override
        public ColumnarBatch next() {
          ColumnarBatch b = pending;
          pending = null;
          return b;
        }
      };
      toArrow = new ColumnarToArrowBatches(one, sparkSchema, timeZone, allocator, memoryLimit);
    }
    pending = batch;
    return toArrow.next();
  }

  private ColumnarBatch fromSpark(ColumnarBatch batch, Object spark) {
    int n = batch.numRows();
    int count = keptRows(conjuncts.select(spark));
    if (count == n) {
      return copied(batch);
    }
    ColumnarBatch whole = copied(batch); // flat columns are still Spark's: copied on read (ConvertOnReadColumn)
    if ((long) count * 4 >= 3L * n) {
      // Most rows kept: the bulk copy of whole columns and one gather cost less than reading each kept row.
      return gather(whole, count);
    }
    StructField[] fields = sparkSchema.fields();
    int[] kept = Arrays.copyOf(rows, count); // one array for the batch's columns (ConvertOnReadColumn keeps it)
    return keptBatch(fields.length, count, c -> whole.column(c) instanceof ConvertOnReadColumn u
        ? u.select(kept, count, allocator) // read later: its kept rows, or fewer still below a selective join
        : new RowReadArrowColumnVector(conjuncts.selectedColumn(spark, c, rows, count, fields[c].name(),
            fields[c].nullable(), timeZone, allocator)));
  }

  private ColumnarBatch gather(ColumnarBatch batch, int count) {
    int[] kept = Arrays.copyOf(rows, count); // one array for the batch's columns (ConvertOnReadColumn keeps it)
    return keptBatch(batch.numCols(), count, c -> {
      if (batch.column(c) instanceof DeferredGatherVector d) {
        // still deferred: the kept rows' source rows, composed
        return new DeferredGatherVector(d.source(), d.compose(rows, count), count, d.field(), allocator);
      }
      if (batch.column(c) instanceof ConvertOnReadColumn u && !u.isConverted()) {
        return u.select(kept, count, allocator); // still not copied: whoever reads it copies the kept rows
      }
      ValueVector src = vector(batch, c);
      FieldVector out = (FieldVector) src.getField().createVector(allocator);
      try {
        ArrowCopy.gather(src, rows, count, out, scratch);
      } catch (RuntimeException | Error e) {
        out.close();
        throw e;
      }
      return new RowReadArrowColumnVector(out);
    });
  }

  /**
   * The output batch of the kept rows, its columns made by {@code column}; held until the next batch. On failure
   * every column made so far is released (an Arrow allocation failure as the task's memory error).
   */
  private ColumnarBatch keptBatch(int width, int count, IntFunction<ColumnVector> column) {
    ColumnVector[] out = new ColumnVector[width];
    try {
      for (int c = 0; c < width; c++) {
        out[c] = column.apply(c);
      }
    } catch (OutOfMemoryException e) {
      closeAll(out);
      throw TaskArrowMemory.outOfMemory("RowmatchFilter", memoryLimit, e);
    } catch (RuntimeException | Error e) {
      closeAll(out);
      throw e;
    }
    held = out;
    return new ColumnarBatch(out, count);
  }

  private static ValueVector vector(ColumnarBatch batch, int column) {
    if (!(batch.column(column) instanceof ArrowColumnVector v)) {
      throw new IllegalStateException("RowmatchFilter reads Arrow batches; column " + column + " is "
          + batch.column(column).getClass().getName());
    }
    return v.getValueVector();
  }

  private void release() {
    closeAll(held);
    held = new ColumnVector[0];
  }

  private static void closeAll(ColumnVector[] vectors) {
    for (ColumnVector v : vectors) {
      if (v != null) {
        v.close();
      }
    }
  }

  @Override
  public void close() {
    release();
    if (toArrow != null) {
      toArrow.close();
    }
  }
}
