package io.rowmatch.spark.exec;

import java.util.Iterator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

import io.rowmatch.spark.convert.ColumnarToArrowBatches;
import io.rowmatch.spark.convert.RowsToArrowBatches;
import io.rowmatch.spark.shuffle.ShuffleBatchDecoder;

/**
 * The executor side of the transitions into Arrow (RowmatchToArrowExec, and the read side of
 * RowmatchShuffleExchangeExec): one converter per partition, released with the task.
 */
public final class ArrowTransitions {
  private ArrowTransitions() {}

  public static Iterator<ColumnarBatch> fromRows(Iterator<InternalRow> rows, StructType schema,
      ArrowSettings settings, TaskContext task) {
    BufferAllocator allocator = TaskArrowMemory.forTask(task, settings.memoryLimit);
    RowsToArrowBatches batches = new RowsToArrowBatches(rows, schema, settings.timeZone, settings.batchSize,
        allocator, settings.memoryLimit);
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> batches.close());
    return batches;
  }

  public static Iterator<ColumnarBatch> fromColumnar(Iterator<ColumnarBatch> input, StructType schema,
      ArrowSettings settings, TaskContext task) {
    BufferAllocator allocator = TaskArrowMemory.forTask(task, settings.memoryLimit);
    ColumnarToArrowBatches batches = new ColumnarToArrowBatches(input, schema, settings.timeZone, allocator,
        settings.memoryLimit);
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> batches.close());
    return batches;
  }

  public static Iterator<ColumnarBatch> fromShuffle(Iterator<byte[]> records, StructType schema,
      ArrowSettings settings, TaskContext task) {
    BufferAllocator allocator = TaskArrowMemory.forTask(task, settings.memoryLimit);
    ShuffleBatchDecoder batches = new ShuffleBatchDecoder(records, schema, settings.timeZone, settings.batchSize,
        allocator, settings.memoryLimit);
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> batches.close());
    return batches;
  }
}
