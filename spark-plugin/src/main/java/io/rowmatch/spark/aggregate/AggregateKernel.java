package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * The state of one aggregate function over all groups of a partition. Rows arrive batch by batch with
 * their dense group ids (group ids only grow: a row whose id equals the number of groups seen so far is
 * that group's first row). At the end the kernel hands out either Spark's partial buffer columns or the
 * final result column; the caller owns (and closes) the vectors it is given.
 */
public interface AggregateKernel extends AutoCloseable {
  /** columns: the batch's columns (by child ordinal); groupCount: groups known after this batch. */
  void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount);

  /** Appends this function's buffer columns, in Spark's aggBufferAttributes order, for groupCount groups. */
  void buffers(int groupCount, List<FieldVector> out);

  /** The function's result column for groupCount groups. */
  FieldVector result(int groupCount);

  @Override
  void close();
}
