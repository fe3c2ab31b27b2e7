package io.rowmatch.spark.agg;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * min/max over integral-like input (byte, short, int, long, date, timestamp): the buffer is the current
 * extreme, null until a non-null value arrives; update and merge are the same operation.
 */
final class MinMaxLongKernel extends SingleValueKernel {
  private final boolean max;
  private long[] best = new long[0];
  private long[] values = new long[0];

  MinMaxLongKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone, boolean max) {
    super(spec, allocator, timeZone);
    this.max = max;
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    best = GrowableState.ensure(best, groupCount);
    has = GrowableState.ensure(has, groupCount);
    values = GrowableState.ensure(values, rows);
    ValueVector input = columns[spec.inputOrdinals[0]];
    NumericColumns.readLongs(input, rows, values);
    boolean anyNull = input.getNullCount() > 0;
    for (int i = 0; i < rows; i++) {
      if (anyNull && input.isNull(i)) {
        continue;
      }
      int g = groupIds[i];
      long v = values[i];
      if (!has[g] || (max ? v > best[g] : v < best[g])) {
        best[g] = v;
        has[g] = true;
      }
    }
  }

  @Override
  void writeValues(FieldVector v, int groupCount) {
    best = GrowableState.ensure(best, groupCount);
    NumericColumns.writeLongs(v, best, has, groupCount);
  }
}
