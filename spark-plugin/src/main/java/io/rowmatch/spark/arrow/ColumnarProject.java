package io.rowmatch.spark.arrow;

import java.util.Iterator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.expression.ColumnarExpressions;
import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * The executor side of a computing RowmatchProjectExec: each output column is an input column passed through
 * (shared, zero copy) or a new vector the expression kernels computed; the new vectors stay valid until the next
 * batch is asked for.
 */
public final class ColumnarProject implements Iterator<ColumnarBatch>, AutoCloseable {
  private final Iterator<ColumnarBatch> input;
  private final ColumnarExpressions expressions;
  private final String[] names;
  private final String timeZone;
  private final BufferAllocator allocator;
  private final long memoryLimit;
  private FieldVector[] held = new FieldVector[0];

  private ColumnarProject(Iterator<ColumnarBatch> input, ColumnarExpressions expressions, String[] names,
      String timeZone, BufferAllocator allocator, long memoryLimit) {
    this.input = input;
    this.expressions = expressions;
    this.names = names;
    this.timeZone = timeZone;
    this.allocator = allocator;
    this.memoryLimit = memoryLimit;
  }

  public static Iterator<ColumnarBatch> run(Iterator<ColumnarBatch> input, ColumnarExpressions expressions,
      String[] names, ArrowSettings settings, TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new ColumnarProject(input, expressions, names, settings.timeZone, allocator,
            settings.memoryLimit));
  }

  /** For tests: a projection drawing from the given allocator. */
  static ColumnarProject over(Iterator<ColumnarBatch> input, ColumnarExpressions expressions, String[] names,
      String timeZone, BufferAllocator allocator) {
    return new ColumnarProject(input, expressions, names, timeZone, allocator, Long.MAX_VALUE);
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
    Object in = expressions.open(batch);
    int m = expressions.size();
    FieldVector[] out = new FieldVector[m];
    ColumnVector[] columns = new ColumnVector[m];
    try {
      for (int i = 0; i < m; i++) {
        int pass = expressions.passThrough(i);
        if (pass >= 0) {
          columns[i] = batch.column(pass);
        } else {
          out[i] = expressions.evaluate(in, i, names[i], true, timeZone, allocator);
          columns[i] = new RowReadArrowColumnVector(out[i]);
        }
      }
    } catch (OutOfMemoryException e) {
      closeAll(out);
      throw TaskArrowMemory.outOfMemory("RowmatchProject", memoryLimit, e);
    } catch (RuntimeException | Error e) {
      closeAll(out);
      throw e;
    }
    held = out;
    return new ColumnarBatch(columns, batch.numRows());
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
