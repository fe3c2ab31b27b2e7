package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/** Kernels against direct per-group computations, including Spark's edge rules. */
class KernelTest extends AllocatorTest {
  private static StructField f(String name, DataType t) {
    return new StructField(name, t, true, Metadata.empty());
  }

  private static FunctionSpec spec(FunctionKernel kind, int[] inputs, boolean merge, boolean ansi,
      boolean ignoreNulls, DataType result, DataType... buffers) {
    StructField[] bf = new StructField[buffers.length];
    for (int i = 0; i < bf.length; i++) {
      bf[i] = f("b" + i, buffers[i]);
    }
    return new FunctionSpec(kind, inputs, merge, ansi, ignoreNulls, bf, f("r", result), kind.toString());
  }

  private VarCharVector strings(String... values) {
    VarCharVector v = new VarCharVector("s", allocator);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  private BigIntVector longs(Long... values) {
    BigIntVector v = new BigIntVector("l", allocator);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, values[i]);
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  private Float8Vector doubles(Double... values) {
    Float8Vector v = new Float8Vector("d", allocator);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, values[i]);
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  private static String str(VarCharVector v, int i) {
    return v.isNull(i) ? null : new String(v.get(i), StandardCharsets.UTF_8);
  }

  @Test
  void firstIgnoringNullsSettlesLateGroupsAcrossBatches() {
    FunctionSpec s = spec(FirstFunction.FIRST, new int[] {0}, false, false, true, DataTypes.StringType,
        DataTypes.StringType, DataTypes.BooleanType);
    try (AggregateKernel k = s.newKernel(allocator, "UTC");
        VarCharVector b1 = strings(null, "x", "a", null);
        VarCharVector b2 = strings("late", "y", "z")) {
      k.update(new ValueVector[] {b1}, 4, new int[] {0, 1, 0, 2}, 3);
      k.update(new ValueVector[] {b2}, 3, new int[] {2, 1, 3}, 4);
      List<FieldVector> out = new ArrayList<>();
      k.buffers(4, out);
      try (VarCharVector values = (VarCharVector) out.get(0); BitVector set = (BitVector) out.get(1)) {
        assertEquals("a", str(values, 0));
        assertEquals("x", str(values, 1));
        assertEquals("late", str(values, 2));
        assertEquals("z", str(values, 3));
        for (int g = 0; g < 4; g++) {
          assertEquals(1, set.get(g));
        }
      }
    }
  }

  @Test
  void firstKeepsNullWhenNullsCountAndMergeTakesFirstSetBuffer() {
    FunctionSpec raw = spec(FirstFunction.FIRST, new int[] {0}, false, false, false, DataTypes.StringType,
        DataTypes.StringType, DataTypes.BooleanType);
    try (AggregateKernel k = raw.newKernel(allocator, "UTC"); VarCharVector b = strings(null, "x", "y")) {
      k.update(new ValueVector[] {b}, 3, new int[] {0, 0, 1}, 2);
      try (VarCharVector r = (VarCharVector) k.result(2)) {
        assertEquals(null, str(r, 0));
        assertEquals("y", str(r, 1));
      }
    }
    FunctionSpec merge = spec(FirstFunction.FIRST, new int[] {0, 1}, true, false, false,
        DataTypes.StringType, DataTypes.StringType, DataTypes.BooleanType);
    try (AggregateKernel k = merge.newKernel(allocator, "UTC");
        VarCharVector values = strings(null, "p", "q", "r");
        BitVector set = new BitVector("set", allocator)) {
      set.allocateNew(4);
      set.set(0, 0);
      set.set(1, 1);
      set.set(2, 1);
      set.set(3, 1);
      set.setValueCount(4);
      k.update(new ValueVector[] {values, set}, 4, new int[] {0, 1, 0, 1}, 2);
      try (VarCharVector r = (VarCharVector) k.result(2)) {
        assertEquals("q", str(r, 0)); // row 0 had valueSet=false, so group 0 takes row 2
        assertEquals("p", str(r, 1));
      }
    }
  }

  @Test
  void firstOfGlobalAggregateOverNoRowsIsUnset() {
    FunctionSpec s = spec(FirstFunction.FIRST, new int[] {0}, false, false, false, DataTypes.LongType,
        DataTypes.LongType, DataTypes.BooleanType);
    try (AggregateKernel k = s.newKernel(allocator, "UTC")) {
      List<FieldVector> out = new ArrayList<>();
      k.buffers(1, out);
      try (FieldVector v = out.get(0); BitVector set = (BitVector) out.get(1)) {
        assertTrue(v.isNull(0));
        assertEquals(0, set.get(0));
      }
    }
  }

  @Test
  void sumOfLongsOverflowsUnderAnsiAndWrapsOtherwise() {
    try (BigIntVector v = longs(Long.MAX_VALUE, 1L, null)) {
      FunctionSpec ansi = spec(SumFunction.SUM_LONG, new int[] {0}, false, true, false,
          DataTypes.LongType, DataTypes.LongType);
      try (AggregateKernel k = ansi.newKernel(allocator, "UTC")) {
        ArithmeticException e = assertThrows(ArithmeticException.class,
            () -> k.update(new ValueVector[] {v}, 3, new int[] {0, 0, 0}, 1));
        assertTrue(e.getMessage().contains("ARITHMETIC_OVERFLOW"), e.getMessage());
      }
      FunctionSpec legacy = spec(SumFunction.SUM_LONG, new int[] {0}, false, false, false,
          DataTypes.LongType, DataTypes.LongType);
      try (AggregateKernel k = legacy.newKernel(allocator, "UTC")) {
        k.update(new ValueVector[] {v}, 3, new int[] {0, 0, 1}, 2);
        try (BigIntVector r = (BigIntVector) k.result(2)) {
          assertEquals(Long.MIN_VALUE, r.get(0));
          assertTrue(r.isNull(1)); // only nulls: null, not 0
        }
      }
    }
  }

  @Test
  void minMaxOfDoublesUseSparkOrdering() {
    try (Float8Vector v = doubles(1.0, Double.NaN, -0.0, 0.0, null, -5.0)) {
      int[] groups = {0, 0, 1, 1, 2, 3};
      FunctionSpec max = spec(MinMaxFunction.MAX_DOUBLE, new int[] {0}, false, false, false,
          DataTypes.DoubleType, DataTypes.DoubleType);
      FunctionSpec min = spec(MinMaxFunction.MIN_DOUBLE, new int[] {0}, false, false, false,
          DataTypes.DoubleType, DataTypes.DoubleType);
      try (AggregateKernel kMax = max.newKernel(allocator, "UTC");
          AggregateKernel kMin = min.newKernel(allocator, "UTC")) {
        kMax.update(new ValueVector[] {v}, 6, groups, 4);
        kMin.update(new ValueVector[] {v}, 6, groups, 4);
        try (Float8Vector rMax = (Float8Vector) kMax.result(4); Float8Vector rMin = (Float8Vector) kMin.result(4)) {
          assertTrue(Double.isNaN(rMax.get(0))); // NaN is the largest value
          assertEquals(1.0, rMin.get(0));
          // -0.0 and 0.0 tie: the first stays, as in Spark's Greatest/Least
          assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(rMax.get(1)));
          assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(rMin.get(1)));
          assertTrue(rMax.isNull(2));
          assertEquals(-5.0, rMax.get(3));
        }
      }
    }
  }

  @Test
  void averageMatchesDirectComputationAndIsNullWithoutValues() {
    Random rnd = new Random(7);
    int n = 1000;
    int groups = 13;
    Long[] values = new Long[n];
    int[] ids = new int[n];
    double[] sums = new double[groups + 1];
    long[] counts = new long[groups + 1];
    for (int i = 0; i < n; i++) {
      ids[i] = rnd.nextInt(groups);
      values[i] = rnd.nextInt(5) == 0 ? null : (long) rnd.nextInt(1_000_000) - 500_000;
      if (values[i] != null) {
        sums[ids[i]] += (double) values[i];
        counts[ids[i]]++;
      }
    }
    FunctionSpec avg = spec(AvgFunction.AVG_DOUBLE, new int[] {0}, false, false, false,
        DataTypes.DoubleType, DataTypes.DoubleType, DataTypes.LongType);
    try (BigIntVector v = longs(values); AggregateKernel k = avg.newKernel(allocator, "UTC")) {
      k.update(new ValueVector[] {v}, n, ids, groups + 1);
      try (Float8Vector r = (Float8Vector) k.result(groups + 1)) {
        for (int g = 0; g < groups; g++) {
          assertEquals(sums[g] / counts[g], r.get(g), 0.0);
        }
        assertTrue(r.isNull(groups));
      }
    }
  }

  @Test
  void countSkipsRowsWithAnyNullInput() {
    FunctionSpec count = spec(CountFunction.COUNT, new int[] {0, 1}, false, false, false,
        DataTypes.LongType, DataTypes.LongType);
    try (BigIntVector a = longs(1L, null, 3L, 4L); Float8Vector b = doubles(1.0, 2.0, null, Double.NaN);
        AggregateKernel k = count.newKernel(allocator, "UTC")) {
      k.update(new ValueVector[] {a, b}, 4, new int[] {0, 0, 0, 1}, 3);
      try (BigIntVector r = (BigIntVector) k.result(3)) {
        assertEquals(1, r.get(0));
        assertEquals(1, r.get(1));
        assertEquals(0, r.get(2));
        assertFalse(r.isNull(2));
      }
    }
  }
}
