package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * The aggregate kernels' reads by address (values and validity words) against Arrow's own checked getters, at
 * the sizes around a validity word's boundary and with every null share; a row count past the vector's is
 * refused with the column's name.
 */
class NumericColumnsTest extends AllocatorTest {
  private static final int[] SIZES = {0, 1, 7, 8, 9, 63, 64, 65, 127, 130, 4096};

  /** validWords answers isNull for every row read (null when none is null), and every read value is get's. */
  private static void checkValidity(ValueVector v, int n) {
    long[] words = NumericColumns.validWords(v, n);
    boolean anyNull = false;
    for (int i = 0; i < n; i++) {
      assertEquals(!v.isNull(i), NumericColumns.valid(words, i), "row " + i + " of " + n);
      anyNull |= v.isNull(i);
    }
    if (!anyNull && v.getNullCount() == 0) {
      assertNull(words);
    }
    if (words != null && (n & 63) != 0) {
      assertEquals(0, words[n >>> 6] >>> (n & 63), "bits past row " + n);
    }
  }

  @Test
  void integralAndDecimalReadsAreArrowsGetters() {
    Random r = new Random(11);
    for (int n : SIZES) {
      for (double nullShare : new double[] {0, 0.1, 0.5, 1}) {
        try (BigIntVector longs = new BigIntVector("l", allocator);
            IntVector ints = new IntVector("i", allocator);
            DecimalVector decimals = new DecimalVector("d", allocator, 18, 2)) {
          longs.allocateNew(n);
          ints.allocateNew(n);
          decimals.allocateNew(n);
          for (int i = 0; i < n; i++) {
            if (r.nextDouble() < nullShare) {
              longs.setNull(i);
              ints.setNull(i);
              decimals.setNull(i);
            } else {
              longs.set(i, r.nextLong());
              ints.set(i, r.nextInt());
              decimals.set(i, BigDecimal.valueOf(r.nextLong() % 1_000_000_000_000_000L, 2));
            }
          }
          longs.setValueCount(n);
          ints.setValueCount(n);
          decimals.setValueCount(n);
          long[] out = new long[n];
          NumericColumns.readLongs(longs, n, out);
          for (int i = 0; i < n; i++) {
            if (!longs.isNull(i)) {
              assertEquals(longs.get(i), out[i], "bigint row " + i);
            }
          }
          NumericColumns.readLongs(ints, n, out);
          for (int i = 0; i < n; i++) {
            if (!ints.isNull(i)) {
              assertEquals(ints.get(i), out[i], "int row " + i);
            }
          }
          NumericColumns.readLongs(decimals, n, out);
          for (int i = 0; i < n; i++) {
            if (!decimals.isNull(i)) {
              assertEquals(decimals.getObject(i).unscaledValue().longValueExact(), out[i], "decimal row " + i);
            }
          }
          checkValidity(longs, n);
          checkValidity(ints, n);
          checkValidity(decimals, n);
          // a prefix of the rows: the words end at the prefix
          checkValidity(ints, n / 2);
        }
      }
    }
  }

  @Test
  void floatingReadsKeepNanPayloadsAndNegativeZero() {
    float[] specials = {Float.NaN, Float.intBitsToFloat(0x7fc00001), -0.0f, 0.0f, Float.NEGATIVE_INFINITY, 1.5f};
    int n = 65;
    try (Float4Vector floats = new Float4Vector("f", allocator);
        Float8Vector doubles = new Float8Vector("d", allocator)) {
      floats.allocateNew(n);
      doubles.allocateNew(n);
      for (int i = 0; i < n; i++) {
        float f = specials[i % specials.length];
        floats.set(i, f);
        doubles.set(i, Double.longBitsToDouble(0x7ff8000000000000L | i));
      }
      floats.setValueCount(n);
      doubles.setValueCount(n);
      double[] out = new double[n];
      long[] scratch = new long[n];
      NumericColumns.readDoubles(floats, n, out, scratch);
      for (int i = 0; i < n; i++) {
        assertEquals(Double.doubleToRawLongBits(floats.get(i)), Double.doubleToRawLongBits(out[i]), "float " + i);
      }
      NumericColumns.readDoubles(doubles, n, out, scratch);
      for (int i = 0; i < n; i++) {
        assertEquals(Double.doubleToRawLongBits(doubles.get(i)), Double.doubleToRawLongBits(out[i]), "double " + i);
      }
      checkValidity(floats, n);
    }
  }

  @Test
  void validityOfAnyColumnTypeCountReads() {
    Random r = new Random(5);
    for (int n : SIZES) {
      try (VarCharVector strings = new VarCharVector("s", allocator)) {
        strings.allocateNew(n);
        for (int i = 0; i < n; i++) {
          if (r.nextInt(3) == 0) {
            strings.setNull(i);
          } else {
            strings.setSafe(i, ("v" + i + "é").getBytes(StandardCharsets.UTF_8));
          }
        }
        strings.setValueCount(n);
        checkValidity(strings, n);
      }
    }
  }

  @Test
  void aNullVectorIsAllNullAndTooManyRowsAreRefused() {
    try (NullVector nulls = new NullVector("n", 65)) {
      long[] words = NumericColumns.validWords(nulls, 65);
      assertArrayEquals(new long[2], words);
    }
    try (IntVector ints = new IntVector("quantity", allocator)) {
      ints.allocateNew(10);
      ints.setValueCount(10);
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> NumericColumns.readLongs(ints, 11, new long[11]));
      assertTrue(e.getMessage().contains("quantity") && e.getMessage().contains("11"), e.getMessage());
      ints.setNull(3);
      IllegalStateException v = assertThrows(IllegalStateException.class, () -> NumericColumns.validWords(ints, 11));
      assertTrue(v.getMessage().contains("quantity") && v.getMessage().contains("11"), v.getMessage());
    }
  }
}
