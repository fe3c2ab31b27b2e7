package io.rowmatch.spark.agg;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * min/max over float/double input with Spark's ordering (SQLOrderingUtil.compareDoubles): NaN is greater
 * than every number and equal to itself, -0.0 equals 0.0. As in Spark's Greatest/Least, a value replaces
 * the current extreme only when strictly beyond it, so on ties the earlier value stays.
 */
final class MinMaxDoubleKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final boolean max;
  private double[] best = new double[0];
  private boolean[] has = new boolean[0];
  private double[] values = new double[0];
  private long[] scratch = new long[0];

  MinMaxDoubleKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone, boolean max) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.max = max;
  }

  static int compareSpark(double x, double y) {
    return x == y ? 0 : Double.compare(x, y);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    best = GrowableState.ensure(best, groupCount);
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
      double v = values[i];
      if (!has[g]) {
        best[g] = v;
        has[g] = true;
      } else {
        int c = compareSpark(v, best[g]);
        if (max ? c > 0 : c < 0) {
          best[g] = v;
        }
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
    best = GrowableState.ensure(best, groupCount);
    has = GrowableState.ensure(has, groupCount);
    FieldVector v = FunctionSpec.newVector(field, timeZone, allocator);
    NumericColumns.writeDoubles(v, best, has, groupCount);
    return v;
  }

  @Override
  public void close() {}
}
