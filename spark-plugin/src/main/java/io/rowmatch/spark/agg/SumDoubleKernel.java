package io.rowmatch.spark.agg;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * sum over float/double input with a double result, as Spark's Sum: null until a non-null value arrives;
 * values are added in row order (the order Spark's hash aggregate uses within a partition).
 */
final class SumDoubleKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private double[] sums = new double[0];
  private boolean[] has = new boolean[0];
  private double[] values = new double[0];
  private long[] scratch = new long[0];

  SumDoubleKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    sums = GrowableState.ensure(sums, groupCount);
    has = GrowableState.ensure(has, groupCount);
    values = GrowableState.ensure(values, rows);
    scratch = GrowableState.ensure(scratch, rows);
    ValueVector input = columns[spec.inputOrdinals[0]];
    NumericColumns.readDoubles(input, rows, values, scratch);
    boolean anyNull = input.getNullCount() > 0;
    for (int i = 0; i < rows; i++) {
      if (anyNull && input.isNull(i)) {
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
  public void buffers(int groupCount, List<FieldVector> out) {
    out.add(write(groupCount, spec.bufferFields[0]));
  }

  @Override
  public FieldVector result(int groupCount) {
    return write(groupCount, spec.resultField);
  }

  private FieldVector write(int groupCount, org.apache.spark.sql.types.StructField field) {
    sums = GrowableState.ensure(sums, groupCount);
    has = GrowableState.ensure(has, groupCount);
    FieldVector v = FunctionSpec.newVector(field, timeZone, allocator);
    NumericColumns.writeDoubles(v, sums, has, groupCount);
    return v;
  }

  @Override
  public void close() {}
}
