package io.rowmatch.spark.agg;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * min/max over integral-like input (byte, short, int, long, date, timestamp): the buffer is the current
 * extreme, null until a non-null value arrives; update and merge are the same operation.
 */
final class MinMaxLongKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final boolean max;
  private long[] best = new long[0];
  private boolean[] has = new boolean[0];
  private long[] values = new long[0];

  MinMaxLongKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone, boolean max) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
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
    NumericColumns.writeLongs(v, best, has, groupCount);
    return v;
  }

  @Override
  public void close() {}
}
