package io.rowmatch.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.junit.jupiter.api.Test;

/** RowReadArrowColumnVector reads exactly what ArrowColumnVector reads, for every row, nulls, slices. */
class RowReadArrowColumnVectorTest {
  private static final String[] STRINGS = {"", "a", "ünï", "日本語", "twelve bytes+", "ab"};
  private static final double[] DOUBLES = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L),
      1.5, Double.NEGATIVE_INFINITY};

  private interface Filler {
    void fill(FieldVector v, int i, Random rnd);
  }

  private static FieldVector build(FieldVector v, int n, boolean nulls, Random rnd, Filler f) {
    v.setInitialCapacity(n);
    v.allocateNew();
    for (int i = 0; i < n; i++) {
      if (nulls && rnd.nextInt(4) == 0) {
        continue;
      }
      f.fill(v, i, rnd);
    }
    v.setValueCount(n);
    return v;
  }

  private static void compare(FieldVector v) {
    ArrowColumnVector slow = new ArrowColumnVector(v);
    RowReadArrowColumnVector fast = new RowReadArrowColumnVector(v);
    int n = v.getValueCount();
    for (int i = 0; i < n; i++) {
      assertEquals(slow.isNullAt(i), fast.isNullAt(i), "null at " + i + " of " + v);
      if (slow.isNullAt(i)) {
        continue;
      }
      if (v instanceof BigIntVector || v instanceof TimeStampMicroTZVector) {
        assertEquals(slow.getLong(i), fast.getLong(i));
      } else if (v instanceof IntVector || v instanceof DateDayVector) {
        assertEquals(slow.getInt(i), fast.getInt(i));
      } else if (v instanceof Float8Vector) {
        assertEquals(Double.doubleToRawLongBits(slow.getDouble(i)), Double.doubleToRawLongBits(fast.getDouble(i)));
      } else if (v instanceof VarCharVector) {
        assertEquals(slow.getUTF8String(i), fast.getUTF8String(i));
      } else if (v instanceof BitVector) {
        assertEquals(slow.getBoolean(i), fast.getBoolean(i));
      } else if (v instanceof DecimalVector) {
        assertEquals(slow.getDecimal(i, 20, 2), fast.getDecimal(i, 20, 2));
      }
    }
    if (v instanceof VarCharVector) {
      for (int i = 0; i < n; i++) {
        assertEquals(slow.getUTF8String(i), fast.getUTF8String(i)); // null rows read null too
      }
    }
    if (n > 0 && !(v instanceof DecimalVector)) {
      assertThrows(IndexOutOfBoundsException.class, () -> fast.isNullAt(n));
      assertThrows(IndexOutOfBoundsException.class, () -> fast.isNullAt(-1));
    }
  }

  private static void eachShape(BufferAllocator a, java.util.function.Supplier<FieldVector> make, Filler f) {
    Random rnd = new Random(5);
    for (int n : new int[] {0, 1, 63, 64, 65, 700}) {
      for (boolean nulls : new boolean[] {false, true}) {
        try (FieldVector v = build(make.get(), n, nulls, rnd, f)) {
          compare(v);
          if (n > 10) {
            TransferPair p = v.getTransferPair(a);
            p.splitAndTransfer(3, n - 7); // a slice at an unaligned start
            try (FieldVector slice = (FieldVector) p.getTo()) {
              compare(slice);
            }
          }
        }
      }
    }
  }

  @Test
  void readsLikeArrowColumnVector() {
    try (BufferAllocator a = new RootAllocator()) {
      eachShape(a, () -> new BigIntVector("l", a), (v, i, r) -> ((BigIntVector) v).set(i, r.nextLong()));
      eachShape(a, () -> new IntVector("i", a), (v, i, r) -> ((IntVector) v).set(i, r.nextInt()));
      eachShape(a, () -> new DateDayVector("d", a), (v, i, r) -> ((DateDayVector) v).set(i, r.nextInt(40000)));
      eachShape(a, () -> new TimeStampMicroTZVector("t", a, "UTC"),
          (v, i, r) -> ((TimeStampMicroTZVector) v).set(i, r.nextLong()));
      eachShape(a, () -> new Float8Vector("f", a),
          (v, i, r) -> ((Float8Vector) v).set(i, DOUBLES[r.nextInt(DOUBLES.length)]));
      eachShape(a, () -> new VarCharVector("s", a), (v, i, r) -> ((VarCharVector) v).setSafe(i,
          (STRINGS[r.nextInt(STRINGS.length)] + r.nextInt(5)).getBytes(StandardCharsets.UTF_8)));
      eachShape(a, () -> new BitVector("b", a), (v, i, r) -> ((BitVector) v).set(i, r.nextBoolean() ? 1 : 0));
      // a type without a direct path reads through ArrowColumnVector
      eachShape(a, () -> new DecimalVector("m", a, 20, 2),
          (v, i, r) -> ((DecimalVector) v).set(i, new BigDecimal(r.nextInt(100000) + ".25")));
    }
  }

  @Test
  void stringOffsetsOutsideTheDataFailWithoutReading() {
    try (BufferAllocator a = new RootAllocator(); VarCharVector s = new VarCharVector("s", a)) {
      s.allocateNew();
      s.setSafe(0, "abc".getBytes(StandardCharsets.UTF_8));
      s.setSafe(1, "de".getBytes(StandardCharsets.UTF_8));
      s.setValueCount(2);
      s.getOffsetBuffer().setInt(8, 1 << 30);
      RowReadArrowColumnVector fast = new RowReadArrowColumnVector(s);
      assertEquals("abc", fast.getUTF8String(0).toString());
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> fast.getUTF8String(1));
      assertTrue(e.getMessage().contains("offsets"), e.getMessage());
    }
  }
}
