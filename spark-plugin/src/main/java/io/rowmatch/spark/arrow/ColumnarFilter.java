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
  private FieldVector[] held = new FieldVector[0];
  private int[] rows = new int[0];
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();

  private ColumnarFilter(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts, BufferAllocator allocator,
      long memoryLimit) {
    this.input = input;
    this.conjuncts = conjuncts;
    this.allocator = allocator;
    this.memoryLimit = memoryLimit;
  }

  public static Iterator<ColumnarBatch> run(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts,
      ArrowSettings settings, TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new ColumnarFilter(input, conjuncts, allocator, settings.memoryLimit));
  }

  /** For tests: a filter drawing from the given allocator. */
  static ColumnarFilter over(Iterator<ColumnarBatch> input, ColumnarExpressions conjuncts, BufferAllocator allocator) {
    return new ColumnarFilter(input, conjuncts, allocator, Long.MAX_VALUE);
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
    long[] keep = conjuncts.select(conjuncts.open(batch));
    int count = 0;
    for (long w : keep) {
      count += Long.bitCount(w);
    }
    if (count == n) {
      return batch;
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
