package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.compare.ColumnLayout;

/**
 * Reads a batch's numeric column into a primitive scratch array in one typed loop (one type switch per
 * batch, not per value), and writes per-group results into Arrow vectors. Values under nulls are read too
 * (they are whatever the buffer holds); callers consult validity.
 */
final class NumericColumns {
  private NumericColumns() {}

  /**
   * The checked layout of v's first n rows: its buffers' capacities are proven once here (ColumnLayout), so
   * the loops below and the kernels read values and validity by address. A checked ArrowBuf read per value
   * (bounds and a reference-count read) cost more than the aggregation's own work on it.
   */
  static ColumnLayout layout(ValueVector v, int n) {
    ColumnLayout l = ColumnLayout.of(v, "aggregate input '" + v.getName() + "'");
    if (n < 0 || n > l.valueCount) {
      throw new IllegalStateException("aggregate input '" + v.getName() + "' holds " + l.valueCount
          + " values, " + n + " rows read");
    }
    return l;
  }

  /**
   * Integral-like columns as longs: byte, short, int, long, date, timestamp, boolean (0/1) and decimals of
   * precision up to 18 (the unscaled value).
   */
  static void readLongs(ValueVector v, int n, long[] out) {
    long d = layout(v, n).data;
    if (v instanceof BigIntVector || v instanceof TimeStampVector) {
      for (int i = 0; i < n; i++) {
        out[i] = MemoryUtil.getLong(d + 8L * i);
      }
    } else if (v instanceof IntVector || v instanceof DateDayVector) {
      for (int i = 0; i < n; i++) {
        out[i] = MemoryUtil.getInt(d + 4L * i);
      }
    } else if (v instanceof SmallIntVector) {
      for (int i = 0; i < n; i++) {
        out[i] = MemoryUtil.getShort(d + 2L * i);
      }
    } else if (v instanceof TinyIntVector) {
      for (int i = 0; i < n; i++) {
        out[i] = MemoryUtil.getByte(d + i);
      }
    } else if (v instanceof DecimalVector) {
      // decimal(p <= 18): the unscaled value fits the low word (the high word is its sign extension)
      for (int i = 0; i < n; i++) {
        out[i] = MemoryUtil.getLong(d + (long) DecimalVector.TYPE_WIDTH * i);
      }
    } else if (v instanceof BitVector) {
      for (int i = 0; i < n; i++) {
        out[i] = (MemoryUtil.getByte(d + (i >>> 3)) >>> (i & 7)) & 1; // false < true, as Spark orders booleans
      }
    } else {
      throw new IllegalStateException("not an integral Arrow vector: " + v.getClass().getSimpleName());
    }
  }

  /** Floating columns as doubles (float widens exactly, as Spark's cast does); integral ones cast. */
  static void readDoubles(ValueVector v, int n, double[] out, long[] scratch) {
    if (v instanceof Float8Vector) {
      long d = layout(v, n).data;
      for (int i = 0; i < n; i++) {
        out[i] = Double.longBitsToDouble(MemoryUtil.getLong(d + 8L * i));
      }
    } else if (v instanceof Float4Vector) {
      long d = layout(v, n).data;
      for (int i = 0; i < n; i++) {
        out[i] = Float.intBitsToFloat(MemoryUtil.getInt(d + 4L * i));
      }
    } else {
      readLongs(v, n, scratch);
      for (int i = 0; i < n; i++) {
        out[i] = (double) scratch[i];
      }
    }
  }

  /**
   * The validity of v's first n rows as words (bit i of word i / 64 set: row i valid), or null when none of
   * them is null; the kernels test it with {@link #valid}.
   */
  static long[] validWords(ValueVector v, int n) {
    if (v.getNullCount() == 0) {
      return null;
    }
    long[] words = new long[(n + 63) >>> 6];
    if (v instanceof NullVector) {
      return words;
    }
    // Only the bitmap is read here, whatever the column's type (count takes any): its capacity alone is checked.
    ArrowBuf bitmap = v.getValidityBuffer();
    if (n > v.getValueCount() || bitmap.capacity() < ((n + 7L) >>> 3)) {
      throw new IllegalStateException("aggregate input '" + v.getName() + "' holds " + v.getValueCount()
          + " values and a validity bitmap of " + bitmap.capacity() + " bytes, " + n + " rows read");
    }
    long validity = bitmap.memoryAddress();
    int full = n >>> 6;
    for (int k = 0; k < full; k++) {
      words[k] = MemoryUtil.getLong(validity + 8L * k);
    }
    int tail = n & 63;
    if (tail != 0) {
      long w = 0;
      for (int b = 0; b < (tail + 7) >>> 3; b++) { // only the bitmap's own bytes: (n + 7) / 8 of them
        w |= (MemoryUtil.getByte(validity + 8L * full + b) & 0xFFL) << (8 * b);
      }
      words[full] = w & ((1L << tail) - 1);
    }
    return words;
  }

  /** Whether row i is valid in {@link #validWords}' answer (null: every row valid). */
  static boolean valid(long[] words, int i) {
    return words == null || ((words[i >>> 6] >>> i) & 1) != 0;
  }

  /** Validity of the first n rows (true = valid). */
  static void readValidity(ValueVector v, int n, boolean[] out) {
    long[] words = validWords(v, n);
    for (int i = 0; i < n; i++) {
      out[i] = valid(words, i);
    }
  }

  /** Writes n values (null where valid[i] is false; valid may be null for all valid) into target. */
  static void writeLongs(FieldVector target, long[] values, boolean[] valid, int n) {
    target.setInitialCapacity(n);
    target.allocateNew();
    for (int i = 0; i < n; i++) {
      if (valid != null && !valid[i]) {
        continue; // freshly allocated validity is zero: null
      }
      long x = values[i];
      if (target instanceof BigIntVector t) {
        t.set(i, x);
      } else if (target instanceof TimeStampVector t) {
        t.set(i, x);
      } else if (target instanceof IntVector t) {
        t.set(i, (int) x);
      } else if (target instanceof DateDayVector t) {
        t.set(i, (int) x);
      } else if (target instanceof SmallIntVector t) {
        t.set(i, (short) x);
      } else if (target instanceof TinyIntVector t) {
        t.set(i, (byte) x);
      } else if (target instanceof DecimalVector t) {
        t.set(i, x);
      } else if (target instanceof BitVector t) {
        t.set(i, (int) x);
      } else {
        throw new IllegalStateException("not an integral Arrow vector: " + target.getClass().getSimpleName());
      }
    }
    target.setValueCount(n);
  }

  static void writeDoubles(FieldVector target, double[] values, boolean[] valid, int n) {
    target.setInitialCapacity(n);
    target.allocateNew();
    for (int i = 0; i < n; i++) {
      if (valid != null && !valid[i]) {
        continue;
      }
      if (target instanceof Float8Vector t) {
        t.set(i, values[i]);
      } else if (target instanceof Float4Vector t) {
        t.set(i, (float) values[i]);
      } else {
        throw new IllegalStateException("not a floating Arrow vector: " + target.getClass().getSimpleName());
      }
    }
    target.setValueCount(n);
  }

  static void writeBooleans(BitVector target, boolean[] values, int n) {
    target.setInitialCapacity(n);
    target.allocateNew();
    for (int i = 0; i < n; i++) {
      target.set(i, values[i] ? 1 : 0);
    }
    target.setValueCount(n);
  }
}
