package io.rowmatch.spark.rules;
/**
 * A Rowmatch operator with a child it reads row-based (for example a broadcast exchange), which the Arrow
 * transition rule must leave as it is rather than convert to Arrow batches.
 */
public interface RowInputChildren {
  boolean keepsRowInput(int child);
}
