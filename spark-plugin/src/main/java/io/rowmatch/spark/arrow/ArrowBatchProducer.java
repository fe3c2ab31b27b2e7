package io.rowmatch.spark.arrow;
/**
 * Marks the plan nodes whose columnar output is always Arrow (ArrowColumnVector) batches, so the rules
 * can drop a row round trip between two such nodes and know no conversion is needed.
 */
public interface ArrowBatchProducer {}
