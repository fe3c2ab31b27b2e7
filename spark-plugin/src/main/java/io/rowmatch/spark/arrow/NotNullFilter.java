package io.rowmatch.spark.arrow;

import java.util.Iterator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * The executor side of RowmatchFilterExec: drops the rows of Arrow batches where any of the given columns
 * is null. A batch with no null in those columns (the usual case for join keys) passes through untouched;
 * otherwise the kept rows are gathered into new vectors, which stay valid until the next batch is asked for.
 */
public final class NotNullFilter implements Iterator<ColumnarBatch>, AutoCloseable {
  private final Iterator<ColumnarBatch> input;
  private final int[] columns;
  private final BufferAllocator allocator;
  private final long memoryLimit;
  private FieldVector[] held = new FieldVector[0];
  private int[] rows = new int[0];
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();

  private NotNullFilter(Iterator<ColumnarBatch> input, int[] columns, BufferAllocator allocator, long memoryLimit) {
    this.input = input;
    this.columns = columns;
    this.allocator = allocator;
    this.memoryLimit = memoryLimit;
  }

  public static Iterator<ColumnarBatch> run(Iterator<ColumnarBatch> input, int[] columns, ArrowSettings settings,
      TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new NotNullFilter(input, columns, allocator, settings.memoryLimit));
  }

  /** For tests: a filter drawing from the given allocator. */
  static NotNullFilter over(Iterator<ColumnarBatch> input, int[] columns, BufferAllocator allocator) {
    return new NotNullFilter(input, columns, allocator, Long.MAX_VALUE);
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
    int n = batch.numRows();
    boolean anyNull = false;
    for (int c : columns) {
      anyNull |= vector(batch, c).getNullCount() > 0;
    }
    if (!anyNull) {
      return batch;
    }
    if (rows.length < n) {
      rows = new int[n];
    }
    int count = 0;
    for (int r = 0; r < n; r++) {
      boolean keep = true;
      for (int c : columns) {
        keep &= !vector(batch, c).isNull(r);
      }
      rows[count] = r;
      count += keep ? 1 : 0;
    }
    return gather(batch, count);
  }

  private ColumnarBatch gather(ColumnarBatch batch, int count) {
    FieldVector[] out = new FieldVector[batch.numCols()];
    ColumnVector[] columnsOut = new ColumnVector[out.length];
    try {
      for (int c = 0; c < out.length; c++) {
        ValueVector src = vector(batch, c);
        out[c] = (FieldVector) src.getField().createVector(allocator);
        ArrowCopy.gather(src, rows, count, out[c], scratch);
        columnsOut[c] = new RowReadArrowColumnVector(out[c]);
      }
    } catch (OutOfMemoryException e) {
      closeAll(out);
      throw TaskArrowMemory.outOfMemory("RowmatchFilter", memoryLimit, e);
    } catch (RuntimeException | Error e) {
      closeAll(out);
      throw e;
    }
    held = out;
    return new ColumnarBatch(columnsOut, count);
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
    held = new FieldVector[0];
  }

  private static void closeAll(FieldVector[] vectors) {
    for (FieldVector v : vectors) {
      if (v != null) {
        v.close();
      }
    }
  }

  @Override
  public void close() {
    release();
  }
}
