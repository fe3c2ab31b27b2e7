package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * sum over float/double input with a double result, as Spark's Sum: null until a non-null value arrives;
 * values are added in row order (the order Spark's hash aggregate uses within a partition).
 */
final class SumDoubleKernel extends SingleValueKernel {
  private double[] sums = new double[0];
  private double[] values = new double[0];
  private long[] scratch = new long[0];

  SumDoubleKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    super(spec, allocator, timeZone);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    sums = GrowableState.ensure(heap, sums, groupCount);
    has = GrowableState.ensure(heap, has, groupCount);
    values = GrowableState.ensure(heap, values, rows);
    scratch = GrowableState.ensure(heap, scratch, rows);
    ValueVector input = columns[spec.inputOrdinals[0]];
    NumericColumns.readDoubles(input, rows, values, scratch);
    long[] valid = NumericColumns.validWords(input, rows);
    for (int i = 0; i < rows; i++) {
      if (!NumericColumns.valid(valid, i)) {
        continue;
      }
      int g = groupIds[i];
      if (has[g]) {
        sums[g] += values[i];
      } else {
        // Spark computes coalesce(sum, 0.0) + v: 0.0 + -0.0 is 0.0, so start from 0.0 the same way.
        sums[g] = 0.0 + values[i];
        has[g] = true;
      }
    }
  }

  @Override
  void writeValues(FieldVector v, int groupCount) {
    sums = GrowableState.ensure(heap, sums, groupCount);
    NumericColumns.writeDoubles(v, sums, has, groupCount);
  }
}
