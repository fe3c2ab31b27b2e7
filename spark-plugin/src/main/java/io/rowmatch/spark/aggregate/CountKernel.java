package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * count(e1, ..., ek) counts rows where every input is non-null (count(*) has no column inputs: every
 * row); the merge adds partial counts. Buffer: count (bigint, never null). Result: the count.
 */
final class CountKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final HeapAccount heap;
  private long[] counts = new long[0];
  private long[] scratch = new long[0];

  CountKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = new HeapAccount(allocator, spec.description);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    counts = GrowableState.ensure(heap, counts, groupCount);
    if (spec.merge) {
      ValueVector partial = columns[spec.inputOrdinals[0]];
      scratch = GrowableState.ensure(heap, scratch, rows);
      NumericColumns.readLongs(partial, rows, scratch);
      long[] valid = NumericColumns.validWords(partial, rows);
      for (int i = 0; i < rows; i++) {
        if (NumericColumns.valid(valid, i)) {
          counts[groupIds[i]] += scratch[i];
        }
      }
      return;
    }
    // Counted rows: valid in every input, the inputs' validity words ANDed (all valid: no words at all).
    long[] counted = null;
    for (int c = 0; c < spec.inputOrdinals.length; c++) {
      long[] valid = NumericColumns.validWords(columns[spec.inputOrdinals[c]], rows);
      if (valid != null && counted == null) {
        counted = valid;
      } else if (valid != null) {
        for (int k = 0; k < counted.length; k++) {
          counted[k] &= valid[k];
        }
      }
    }
    for (int i = 0; i < rows; i++) {
      if (NumericColumns.valid(counted, i)) {
        counts[groupIds[i]]++;
      }
    }
  }

  @Override
  public void buffers(int groupCount, List<FieldVector> out) {
    out.add(result(groupCount, spec.bufferFields[0]));
  }

  @Override
  public FieldVector result(int groupCount) {
    return result(groupCount, spec.resultField);
  }

  private FieldVector result(int groupCount, org.apache.spark.sql.types.StructField field) {
    counts = GrowableState.ensure(heap, counts, groupCount);
    FieldVector v = FunctionSpec.newVector(field, timeZone, allocator);
    NumericColumns.writeLongs(v, counts, null, groupCount);
    return v;
  }

  @Override
  public void close() {
    heap.close();
  }
}
