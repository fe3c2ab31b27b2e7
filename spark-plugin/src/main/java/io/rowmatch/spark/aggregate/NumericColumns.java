package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;

/**
 * Reads a batch's numeric column into a primitive scratch array in one typed loop (one type switch per
 * batch, not per value), and writes per-group results into Arrow vectors. Values under nulls are read too
 * (they are whatever the buffer holds); callers consult validity.
 */
final class NumericColumns {
  private NumericColumns() {}

  /**
   * Integral-like columns as longs: byte, short, int, long, date, timestamp, boolean (0/1) and decimals of
   * precision up to 18 (the unscaled value).
   */
  static void readLongs(ValueVector v, int n, long[] out) {
    if (v instanceof BigIntVector || v instanceof TimeStampVector) {
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = d.getLong((long) i * 8);
      }
    } else if (v instanceof IntVector || v instanceof DateDayVector) {
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = d.getInt((long) i * 4);
      }
    } else if (v instanceof SmallIntVector) {
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = d.getShort((long) i * 2);
      }
    } else if (v instanceof TinyIntVector) {
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = d.getByte(i);
      }
    } else if (v instanceof DecimalVector) {
      // decimal(p <= 18): the unscaled value fits the low word (the high word is its sign extension)
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = d.getLong((long) i * DecimalVector.TYPE_WIDTH);
      }
    } else if (v instanceof BitVector) {
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = (d.getByte(i >>> 3) >>> (i & 7)) & 1; // false < true, as Spark orders booleans
      }
    } else {
      throw new IllegalStateException("not an integral Arrow vector: " + v.getClass().getSimpleName());
    }
  }

  /** Floating columns as doubles (float widens exactly, as Spark's cast does); integral ones cast. */
  static void readDoubles(ValueVector v, int n, double[] out, long[] scratch) {
    if (v instanceof Float8Vector) {
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = d.getDouble((long) i * 8);
      }
    } else if (v instanceof Float4Vector) {
      ArrowBuf d = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        out[i] = d.getFloat((long) i * 4);
      }
    } else {
      readLongs(v, n, scratch);
      for (int i = 0; i < n; i++) {
        out[i] = (double) scratch[i];
      }
    }
  }

  /** Validity of the first n rows (true = valid). */
  static void readValidity(ValueVector v, int n, boolean[] out) {
    if (v.getNullCount() == 0) {
      java.util.Arrays.fill(out, 0, n, true);
      return;
    }
    for (int i = 0; i < n; i++) {
      out[i] = !v.isNull(i);
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
