package io.rowmatch.spark.scan;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The Spark line this build runs on keeps the vectorized reader's state where {@link ParquetBatches} reads it: were
 * a field renamed, the decoder would quietly leave every file to Spark's reader (right answers, no decoding), so each
 * line's unit tests say so here.
 */
class ParquetBatchesTest {
  @Test
  void sparksVectorizedReaderStateIsReachable() {
    assertTrue(ParquetBatches.AVAILABLE, "Spark's vectorized Parquet reader changed its private layout");
  }
}
