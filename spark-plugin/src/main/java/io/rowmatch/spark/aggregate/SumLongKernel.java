package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.util.MathUtils;

/**
 * sum over integral input with a bigint result, as Spark's Sum: the buffer is the running sum, null until
 * a non-null value arrives (so the sum of only nulls is null); nulls are skipped. Under ANSI an overflow
 * raises Spark's own ARITHMETIC_OVERFLOW error (MathUtils.addExact); under LEGACY it wraps, which is
 * order-independent, so partial sums merge to the same value as Spark's.
 */
final class SumLongKernel extends SingleValueKernel {
  private long[] sums = new long[0];
  private long[] values = new long[0];

  SumLongKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    super(spec, allocator, timeZone);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    sums = GrowableState.ensure(heap, sums, groupCount);
    has = GrowableState.ensure(heap, has, groupCount);
    values = GrowableState.ensure(heap, values, rows);
    ValueVector input = columns[spec.inputOrdinals[0]];
    NumericColumns.readLongs(input, rows, values);
    long[] valid = NumericColumns.validWords(input, rows);
    boolean ansi = spec.ansi;
    for (int i = 0; i < rows; i++) {
      if (!NumericColumns.valid(valid, i)) {
        continue;
      }
      int g = groupIds[i];
      if (has[g]) {
        sums[g] = ansi ? MathUtils.addExact(sums[g], values[i]) : sums[g] + values[i];
      } else {
        sums[g] = values[i];
        has[g] = true;
      }
    }
  }

  @Override
  void writeValues(FieldVector v, int groupCount) {
    sums = GrowableState.ensure(heap, sums, groupCount);
    NumericColumns.writeLongs(v, sums, has, groupCount);
  }
}
