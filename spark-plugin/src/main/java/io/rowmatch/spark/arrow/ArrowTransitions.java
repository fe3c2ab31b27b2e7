package io.rowmatch.spark.arrow;

import java.util.Iterator;

import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * The executor side of RowmatchToArrowExec, the transition into Arrow: one converter per partition,
 * released with the task.
 */
public final class ArrowTransitions {
  private ArrowTransitions() {}

  public static Iterator<ColumnarBatch> fromRows(Iterator<InternalRow> rows, StructType schema,
      ArrowSettings settings, TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new RowsToArrowBatches(rows, schema, settings.timeZone, settings.batchSize,
            allocator, settings.memoryLimit));
  }

  public static Iterator<ColumnarBatch> fromColumnar(Iterator<ColumnarBatch> input, StructType schema,
      ArrowSettings settings, TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit,
        allocator -> new ColumnarToArrowBatches(input, schema, settings.timeZone, allocator,
            settings.memoryLimit));
  }
}
