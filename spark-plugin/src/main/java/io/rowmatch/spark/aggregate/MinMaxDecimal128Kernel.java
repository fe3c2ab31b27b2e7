package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * min/max over decimal(p, s) with p > 18, whose unscaled values need 128 bits. Input and buffer share one
 * type (one scale), so comparing values is comparing the 128-bit two's complement integers Arrow stores
 * (little-endian: low word, then high word): the signed high words, then the low words unsigned. No
 * BigDecimal in the loop. (p <= 18 fits a long and runs in MinMaxLongKernel.)
 */
final class MinMaxDecimal128Kernel extends SingleValueKernel {
  private final boolean max;
  private long[] low = new long[0];
  private long[] high = new long[0];

  MinMaxDecimal128Kernel(FunctionSpec spec, BufferAllocator allocator, String timeZone, boolean max) {
    super(spec, allocator, timeZone);
    this.max = max;
  }

  /** Signed comparison of (high1, low1) and (high2, low2) as 128-bit integers. */
  static int compare128(long high1, long low1, long high2, long low2) {
    int c = Long.compare(high1, high2);
    return c != 0 ? c : Long.compareUnsigned(low1, low2);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    low = GrowableState.ensure(heap, low, groupCount);
    high = GrowableState.ensure(heap, high, groupCount);
    has = GrowableState.ensure(heap, has, groupCount);
    ValueVector input = columns[spec.inputOrdinals[0]];
    if (!(input instanceof DecimalVector)) {
      throw new IllegalStateException(spec.description + " expects a 128-bit decimal column, got "
          + input.getClass().getSimpleName());
    }
    long data = NumericColumns.layout(input, rows).data;
    long[] valid = NumericColumns.validWords(input, rows);
    for (int i = 0; i < rows; i++) {
      if (!NumericColumns.valid(valid, i)) {
        continue;
      }
      long at = data + (long) i * DecimalVector.TYPE_WIDTH;
      long lo = MemoryUtil.getLong(at);
      long hi = MemoryUtil.getLong(at + 8);
      int g = groupIds[i];
      if (!has[g]) {
        low[g] = lo;
        high[g] = hi;
        has[g] = true;
      } else {
        int c = compare128(hi, lo, high[g], low[g]);
        if (max ? c > 0 : c < 0) {
          low[g] = lo;
          high[g] = hi;
        }
      }
    }
  }

  @Override
  void writeValues(FieldVector v, int groupCount) {
    low = GrowableState.ensure(heap, low, groupCount);
    high = GrowableState.ensure(heap, high, groupCount);
    DecimalVector out = (DecimalVector) v;
    out.allocateNew(groupCount);
    ArrowBuf data = out.getDataBuffer();
    ArrowBuf validity = out.getValidityBuffer();
    for (int g = 0; g < groupCount; g++) {
      if (has[g]) {
        long at = (long) g * DecimalVector.TYPE_WIDTH;
        data.setLong(at, low[g]);
        data.setLong(at + 8, high[g]);
        BitVectorHelper.setBit(validity, g);
      }
    }
    out.setValueCount(groupCount);
  }
}
