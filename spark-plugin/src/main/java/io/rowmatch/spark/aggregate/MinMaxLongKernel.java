package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * min/max over input that orders as a long (byte, short, int, long, date, timestamp, boolean as 0/1, and
 * decimal(p <= 18) as its unscaled value, all values of one column sharing one scale): the buffer is the
 * current extreme, null until a non-null value arrives; update and merge are the same operation.
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
    best = GrowableState.ensure(heap, best, groupCount);
    has = GrowableState.ensure(heap, has, groupCount);
    values = GrowableState.ensure(heap, values, rows);
    ValueVector input = columns[spec.inputOrdinals[0]];
    NumericColumns.readLongs(input, rows, values);
    long[] valid = NumericColumns.validWords(input, rows);
    for (int i = 0; i < rows; i++) {
      if (!NumericColumns.valid(valid, i)) {
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
    best = GrowableState.ensure(heap, best, groupCount);
    NumericColumns.writeLongs(v, best, has, groupCount);
  }
}
