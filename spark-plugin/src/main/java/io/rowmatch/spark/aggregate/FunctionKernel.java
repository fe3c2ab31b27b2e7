package io.rowmatch.spark.aggregate;

import java.io.Serializable;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * The executor half of a {@link SupportedFunction}: which kernel runs a planned function, and how its partial
 * buffers of single rows are formed when a partial aggregate stops aggregating ({@link PartialPassThrough}).
 * A {@link FunctionSpec} carries one; the planner builds specs on the driver and Spark ships them to the
 * executors, so implementations are enum constants (serialized by name, one instance per JVM), declared in
 * their function's file.
 */
public interface FunctionKernel extends Serializable {
  AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone);

  /** Whether a Partial-mode function's buffers can be formed row by row (see {@link #passThrough}). */
  default boolean passesThrough() {
    return false;
  }

  /**
   * Appends f's buffer columns for the batch's {@code rows} rows to {@code out}, each row's buffer as Spark's
   * update expressions make it from the initial buffer. Columns made here come from {@code p} (which adds them
   * to {@code owned}, closed by the caller); a buffer that equals an input column may share that column.
   */
  default void passThrough(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
      List<FieldVector> out, List<FieldVector> owned) {
    throw new IllegalStateException("no pass-through for " + f.description);
  }
}
