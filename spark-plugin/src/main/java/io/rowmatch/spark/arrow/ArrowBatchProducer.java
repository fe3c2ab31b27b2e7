package io.rowmatch.spark.arrow;

/**
 * Marks the plan nodes whose columnar output is always Arrow (ArrowColumnVector) batches, so the rules
 * can drop a row round trip between two such nodes and know no conversion is needed.
 */
public interface ArrowBatchProducer {
  /**
   * Whether each output batch owns its vectors (a new batch per call), so a consumer may keep or close it.
   * A converter that refills the same vectors batch after batch does not.
   */
  default boolean ownsOutputBatches() {
    return false;
  }
}
