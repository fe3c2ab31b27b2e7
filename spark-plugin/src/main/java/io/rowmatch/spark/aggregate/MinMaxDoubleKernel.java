package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * min/max over float/double input with Spark's ordering (SQLOrderingUtil.compareDoubles): NaN is greater
 * than every number and equal to itself, -0.0 equals 0.0. As in Spark's Greatest/Least, a value replaces
 * the current extreme only when strictly beyond it, so on ties the earlier value stays.
 */
final class MinMaxDoubleKernel extends SingleValueKernel {
  private final boolean max;
  private double[] best = new double[0];
  private double[] values = new double[0];
  private long[] scratch = new long[0];

  MinMaxDoubleKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone, boolean max) {
    super(spec, allocator, timeZone);
    this.max = max;
  }

  static int compareSpark(double x, double y) {
    return x == y ? 0 : Double.compare(x, y);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    best = GrowableState.ensure(heap, best, groupCount);
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
  void writeValues(FieldVector v, int groupCount) {
    best = GrowableState.ensure(heap, best, groupCount);
    NumericColumns.writeDoubles(v, best, has, groupCount);
  }
}
