package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;

/**
 * avg over integral/floating input, as Spark's Average with a double sum: buffer (sum double starting at
 * 0.0, count bigint), nulls skipped; merge adds both; result sum / count, or null when count is 0.
 */
final class AvgDoubleKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final HeapAccount heap;
  private double[] sums = new double[0];
  private long[] counts = new long[0];
  private double[] values = new double[0];
  private long[] longs = new long[0];

  AvgDoubleKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = new HeapAccount(allocator, spec.description);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    sums = GrowableState.ensure(heap, sums, groupCount);
    counts = GrowableState.ensure(heap, counts, groupCount);
    values = GrowableState.ensure(heap, values, rows);
    longs = GrowableState.ensure(heap, longs, rows);
    ValueVector input = columns[spec.inputOrdinals[0]];
    NumericColumns.readDoubles(input, rows, values, longs);
    long[] valid = NumericColumns.validWords(input, rows);
    if (!spec.merge) {
      for (int i = 0; i < rows; i++) {
        if (!NumericColumns.valid(valid, i)) {
          continue;
        }
        int g = groupIds[i];
        sums[g] += values[i];
        counts[g]++;
      }
      return;
    }
    ValueVector partialCounts = columns[spec.inputOrdinals[1]];
    NumericColumns.readLongs(partialCounts, rows, longs);
    long[] countValid = NumericColumns.validWords(partialCounts, rows);
    for (int i = 0; i < rows; i++) {
      int g = groupIds[i];
      if (NumericColumns.valid(valid, i)) {
        sums[g] += values[i];
      }
      if (NumericColumns.valid(countValid, i)) {
        counts[g] += longs[i];
      }
    }
  }

  @Override
  public void buffers(int groupCount, List<FieldVector> out) {
    ensure(groupCount);
    FieldVector sum = FunctionSpec.newVector(spec.bufferFields[0], timeZone, allocator);
    NumericColumns.writeDoubles(sum, sums, null, groupCount);
    out.add(sum);
    FieldVector count = FunctionSpec.newVector(spec.bufferFields[1], timeZone, allocator);
    NumericColumns.writeLongs(count, counts, null, groupCount);
    out.add(count);
  }

  @Override
  public FieldVector result(int groupCount) {
    ensure(groupCount);
    // Written straight into the result vector: no per-group scratch arrays outside the heap account.
    Float8Vector v = (Float8Vector) FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    v.allocateNew(groupCount);
    for (int g = 0; g < groupCount; g++) {
      if (counts[g] != 0) {
        v.set(g, sums[g] / (double) counts[g]);
      }
    }
    v.setValueCount(groupCount);
    return v;
  }

  private void ensure(int groupCount) {
    sums = GrowableState.ensure(heap, sums, groupCount);
    counts = GrowableState.ensure(heap, counts, groupCount);
  }

  @Override
  public void close() {
    heap.close();
  }
}
