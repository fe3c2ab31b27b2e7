package io.rowmatch.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.junit.jupiter.api.Test;

/**
 * A deferred column reads exactly what the gathered column would (every row, nulls from the source and from
 * negative rows), composes as a gather of a gather, gathers once and releases what it gathered, and rejects rows
 * outside its source and non-flat sources with the column's name.
 */
class DeferredGatherVectorTest {
  private static final String[] STRINGS = {"", "a", "ünï", "日本語", "twelve bytes+"};
  private static final double[] DOUBLES = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L), 1.5};

  private static List<FieldVector> sources(BufferAllocator a, int n, Random rnd) {
    IntVector ints = new IntVector("i", a);
    Float8Vector doubles = new Float8Vector("d", a);
    VarCharVector strings = new VarCharVector("s", a);
    VarBinaryVector bins = new VarBinaryVector("bin", a);
    DecimalVector decs = new DecimalVector("dec", a, 38, 4);
    BitVector bools = new BitVector("b", a);
    List<FieldVector> all = List.of(ints, doubles, strings, bins, decs, bools);
    for (FieldVector v : all) {
      v.setInitialCapacity(n);
      v.allocateNew();
    }
    for (int i = 0; i < n; i++) {
      if (rnd.nextInt(5) == 0) {
        continue; // null in every column
      }
      ints.set(i, rnd.nextInt());
      doubles.set(i, DOUBLES[rnd.nextInt(DOUBLES.length)]);
      strings.setSafe(i, STRINGS[rnd.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8));
      bins.setSafe(i, new byte[rnd.nextInt(3)]);
      decs.set(i, new BigDecimal(rnd.nextLong()).movePointLeft(4));
      bools.set(i, rnd.nextInt(2));
    }
    for (FieldVector v : all) {
      v.setValueCount(n);
    }
    return all;
  }

  private static void assertSameRow(ArrowColumnVector expected, int er, ArrowColumnVector actual, int ar) {
    assertEquals(expected.isNullAt(er), actual.isNullAt(ar), "null at " + ar);
    if (expected.isNullAt(er)) {
      return;
    }
    FieldVector v = (FieldVector) expected.getValueVector();
    if (v instanceof IntVector) {
      assertEquals(expected.getInt(er), actual.getInt(ar));
    } else if (v instanceof Float8Vector) {
      assertEquals(Double.doubleToRawLongBits(expected.getDouble(er)), Double.doubleToRawLongBits(actual.getDouble(ar)));
    } else if (v instanceof VarCharVector) {
      assertEquals(expected.getUTF8String(er), actual.getUTF8String(ar));
    } else if (v instanceof VarBinaryVector) {
      assertArrayEquals(expected.getBinary(er), actual.getBinary(ar));
    } else if (v instanceof DecimalVector) {
      Decimal e = expected.getDecimal(er, 38, 4);
      assertEquals(e, actual.getDecimal(ar, 38, 4));
    } else {
      assertEquals(expected.getBoolean(er), actual.getBoolean(ar));
    }
  }

  @Test
  void readsAsTheGatheredRowsAndComposes() {
    Random rnd = new Random(7);
    try (BufferAllocator a = new RootAllocator()) {
      for (int n : new int[] {0, 1, 63, 64, 65, 300}) {
        List<FieldVector> src = sources(a, n, rnd);
        int count = n == 0 ? 0 : 2 * n + 1;
        int[] rows = new int[count + 3]; // longer than count: only the first count rows count
        for (int i = 0; i < rows.length; i++) {
          rows[i] = rnd.nextInt(6) == 0 ? -1 : rnd.nextInt(Math.max(n, 1));
        }
        int[] at = new int[count];
        for (int i = 0; i < count; i++) {
          at[i] = rnd.nextInt(8) == 0 ? -1 : rnd.nextInt(count);
        }
        for (FieldVector s : src) {
          ArrowColumnVector whole = new ArrowColumnVector(s);
          DeferredGatherVector d = new DeferredGatherVector(s, rows, count, s.getField(), a);
          assertFalse(d.isGathered());
          for (int i = 0; i < count; i++) {
            if (rows[i] < 0) {
              assertTrue(d.isNullAt(i));
            } else {
              assertSameRow(whole, rows[i], d, i);
            }
          }
          assertEquals(count > 0, d.isGathered());
          assertEquals(count, d.getValueVector().getValueCount());
          // a gather of the gather: row i is row at[i] of d (null where either is negative)
          DeferredGatherVector twice = new DeferredGatherVector(s, d.compose(at, count), count, s.getField(), a);
          for (int i = 0; i < count; i++) {
            if (at[i] < 0 || rows[at[i]] < 0) {
              assertTrue(twice.isNullAt(i), "composed null at " + i);
            } else {
              assertSameRow(whole, rows[at[i]], twice, i);
            }
          }
          assertEquals(hasNegative(rows, count), d.hasNullRows());
          assertEquals(hasNegative(twice.rows(), count), twice.hasNullRows());
          twice.close();
          d.close();
          d.close(); // twice is harmless
        }
        src.forEach(FieldVector::close);
        assertEquals(0, a.getAllocatedMemory(), "deferred columns release what they gathered");
      }
    }
  }

  private static boolean hasNegative(int[] rows, int count) {
    for (int i = 0; i < count; i++) {
      if (rows[i] < 0) {
        return true;
      }
    }
    return false;
  }

  @Test
  void rejectsRowsOutsideItsSourceAndNestedSources() {
    try (BufferAllocator a = new RootAllocator()) {
      List<FieldVector> src = sources(a, 10, new Random(1));
      FieldVector ints = src.get(0);
      IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
          () -> new DeferredGatherVector(ints, new int[] {3, 10}, 2, ints.getField(), a));
      assertTrue(e.getMessage().contains("'i'") && e.getMessage().contains("10"), e.getMessage());
      try (ListVector list = ListVector.empty("xs", a)) {
        IllegalArgumentException n = assertThrows(IllegalArgumentException.class,
            () -> new DeferredGatherVector(list, new int[0], 0, list.getField(), a));
        assertTrue(n.getMessage().contains("xs"), n.getMessage());
      }
      src.forEach(FieldVector::close);
    }
  }
}
