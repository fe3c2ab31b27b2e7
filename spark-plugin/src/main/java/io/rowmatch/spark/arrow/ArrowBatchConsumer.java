package io.rowmatch.spark.arrow;

/**
 * A plan node that reads its children as Arrow batches: the rules convert what is below it into Arrow
 * (RowmatchToArrow, an Arrow shuffle) or drop a row round trip between it and an {@link ArrowBatchProducer}.
 * A child it reads some other way (a broadcast join's build side, read through Spark's broadcast) says so.
 */
public interface ArrowBatchConsumer {
  /** Whether child {@code child} is read as Arrow batches. */
  default boolean consumesArrow(int child) {
    return true;
  }
}
