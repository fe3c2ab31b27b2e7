package io.rowmatch.spark.shuffle;

import org.apache.spark.sql.vectorized.ColumnarBatch;

/** The shuffle partition of every row of a batch, exactly as Spark's partitioning of the exchange puts it. */
@FunctionalInterface
public interface BatchPartitionIds {
  /** An array of at least batch.numRows() ids in [0, numPartitions); valid until the next call. */
  int[] of(ColumnarBatch batch);
}
