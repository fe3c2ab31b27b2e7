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
 * The executor side of a computing RowmatchProjectExec and of a RowmatchExpandExec: each input batch gives one
 * output batch per projection (a Project has one, an Expand one per grouping set), in the projections' order.
 * Each output column is an input column passed through (shared, zero copy) or a new vector the expression kernels
 * computed; the new vectors stay valid until the next batch is asked for, and the input batch until its last
 * projection's batch has been handed out (its vectors are shared by all of them).
 */
public final class ColumnarProject implements Iterator<ColumnarBatch>, AutoCloseable {
  private final Iterator<ColumnarBatch> input;
  private final ColumnarExpressions[] projections;
  private final String operator;
  private final String[] names;
  private final String timeZone;
  private final BufferAllocator allocator;
  private final long memoryLimit;
  private FieldVector[] held = new FieldVector[0];
  /** The input batch being projected, and the next projection to apply to it. */
  private ColumnarBatch batch;
  private int nextProjection;

  private ColumnarProject(Iterator<ColumnarBatch> input, ColumnarExpressions[] projections, String operator,
      String[] names, String timeZone, BufferAllocator allocator, long memoryLimit) {
    this.input = input;
    this.projections = projections;
    this.operator = operator;
    this.names = names;
    this.timeZone = timeZone;
    this.allocator = allocator;
    this.memoryLimit = memoryLimit;
  }

  /** A Project's batches: one output batch per input batch. */
  public static Iterator<ColumnarBatch> run(Iterator<ColumnarBatch> input, ColumnarExpressions expressions,
      String[] names, ArrowSettings settings, TaskContext task) {
    return run(input, new ColumnarExpressions[] {expressions}, "RowmatchProject", names, settings, task);
  }

  /** An Expand's batches: one output batch per projection per input batch. */
  public static Iterator<ColumnarBatch> run(Iterator<ColumnarBatch> input, ColumnarExpressions[] projections,
      String operator, String[] names, ArrowSettings settings, TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new ColumnarProject(input, projections, operator, names, settings.timeZone, allocator,
            settings.memoryLimit));
  }

  /** For tests: projections drawing from the given allocator. */
  static ColumnarProject over(Iterator<ColumnarBatch> input, ColumnarExpressions[] projections, String[] names,
      String timeZone, BufferAllocator allocator) {
    return new ColumnarProject(input, projections, "ColumnarProject", names, timeZone, allocator, Long.MAX_VALUE);
  }

  /** For tests: one projection drawing from the given allocator. */
  static ColumnarProject over(Iterator<ColumnarBatch> input, ColumnarExpressions expressions, String[] names,
      String timeZone, BufferAllocator allocator) {
    return over(input, new ColumnarExpressions[] {expressions}, names, timeZone, allocator);
  }

  @Override
  public boolean hasNext() {
    if (batch != null && nextProjection < projections.length) {
      return true;
    }
    boolean more = input.hasNext();
    if (!more) {
      close();
    }
    return more;
  }

  @Override
  public ColumnarBatch next() {
    if (batch == null || nextProjection == projections.length) {
      batch = input.next(); // the caller asked hasNext(): the input's own next() refuses past its end
      nextProjection = 0;
    }
    release();
    ColumnarExpressions expressions = projections[nextProjection++];
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
      throw TaskArrowMemory.outOfMemory(operator, memoryLimit, e);
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
    batch = null;
  }
}
