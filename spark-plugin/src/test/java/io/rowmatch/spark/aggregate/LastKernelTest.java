package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * last(x [, ignoreNulls]) against a direct reading of Spark's Last: raw rows batch by batch, and partial
 * buffers (value, valueSet) of two "partitions" merged in order, including partitions where a group was
 * never set (valueSet false) and must not overwrite the other's value.
 */
class LastKernelTest extends AllocatorTest {
  private static final String[] VALUES = {"a", "", "ünï", "日本語", "zz", "a\u0000b", null, null};
  private static final int[] BATCH_SIZES = {0, 1, 63, 64, 65, 7, 200};


  private record Row(int key, String value) {}

  private static List<Row> rows(Random rnd, int n, int keys) {
    List<Row> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Row(rnd.nextInt(keys), VALUES[rnd.nextInt(VALUES.length)]));
    }
    return out;
  }

  /** Spark's Last over rows in order: [value, valueSet] per key seen. */
  private static Map<Integer, Object[]> reference(List<Row> rows, boolean ignoreNulls) {
    Map<Integer, Object[]> out = new HashMap<>();
    for (Row r : rows) {
      Object[] state = out.computeIfAbsent(r.key, k -> new Object[] {null, false});
      if (!ignoreNulls || r.value != null) {
        state[0] = r.value;
        state[1] = true;
      }
    }
    return out;
  }

  /** Feeds rows in batches of the listed sizes (cycling), as raw input. */
  private void feedRaw(AggregateKernel k, KernelHarness h, List<Row> rows, Random rnd) {
    int at = 0;
    while (at < rows.size()) {
      int size = Math.min(rows.size() - at, BATCH_SIZES[rnd.nextInt(BATCH_SIZES.length)]);
      List<String> values = new ArrayList<>();
      int[] keys = new int[size];
      for (int i = 0; i < size; i++) {
        values.add(rows.get(at + i).value);
        keys[i] = rows.get(at + i).key;
      }
      try (VarCharVector v = TestVectors.strings(allocator, values)) {
        h.feed(k, new ValueVector[] {v}, keys);
      }
      at += size;
    }
  }

  private static void assertMatches(Map<Integer, Object[]> expected, KernelHarness h, FieldVector values,
      BitVector set) {
    Map<Integer, Object> got = h.read(values);
    assertEquals(expected.keySet(), got.keySet());
    for (Map.Entry<Integer, Object[]> e : expected.entrySet()) {
      assertEquals(e.getValue()[0], got.get(e.getKey()), "value of key " + e.getKey());
      if (set != null) {
        int g = h.groupOf.get(e.getKey());
        assertEquals((Boolean) e.getValue()[1] ? 1 : 0, set.get(g), "valueSet of key " + e.getKey());
      }
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void rawRowsMatchSparkAcrossBatchesAndCompaction(boolean ignoreNulls) {
    Random rnd = new Random(ignoreNulls ? 11 : 12);
    // few keys over many rows: every batch supersedes values, so the store compacts repeatedly
    for (int keys : new int[] {1, 3, 64, 5000}) {
      List<Row> rows = rows(rnd, 6000, keys);
      FunctionSpec s = KernelHarness.spec(LastFunction.LAST, false, ignoreNulls, DataTypes.StringType,
          DataTypes.StringType, DataTypes.BooleanType);
      KernelHarness h = new KernelHarness();
      try (AggregateKernel k = s.newKernel(allocator, "UTC")) {
        feedRaw(k, h, rows, rnd);
        List<FieldVector> out = new ArrayList<>();
        k.buffers(h.groupCount(), out);
        try (FieldVector values = out.get(0); BitVector set = (BitVector) out.get(1)) {
          assertMatches(reference(rows, ignoreNulls), h, values, set);
        }
        try (FieldVector result = k.result(h.groupCount())) {
          assertMatches(reference(rows, ignoreNulls), h, result, null);
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void mergingPartialBuffersKeepsTheLastSetValue(boolean ignoreNulls) {
    Random rnd = new Random(ignoreNulls ? 21 : 22);
    for (int round = 0; round < 20; round++) {
      int keys = 1 + rnd.nextInt(40);
      List<Row> first = rows(rnd, rnd.nextInt(300), keys);
      List<Row> second = rows(rnd, rnd.nextInt(300), keys);
      FunctionSpec partial = KernelHarness.spec(LastFunction.LAST, false, ignoreNulls, DataTypes.StringType,
          DataTypes.StringType, DataTypes.BooleanType);
      FunctionSpec merge = KernelHarness.spec(LastFunction.LAST, true, ignoreNulls, DataTypes.StringType,
          DataTypes.StringType, DataTypes.BooleanType);
      KernelHarness merged = new KernelHarness();
      try (AggregateKernel m = merge.newKernel(allocator, "UTC")) {
        for (List<Row> part : List.of(first, second)) {
          KernelHarness h = new KernelHarness();
          try (AggregateKernel p = partial.newKernel(allocator, "UTC")) {
            feedRaw(p, h, part, rnd);
            List<FieldVector> buffers = new ArrayList<>();
            p.buffers(h.groupCount(), buffers);
            try (FieldVector values = buffers.get(0); FieldVector set = buffers.get(1)) {
              merged.feed(m, new ValueVector[] {values, set}, h.keysInGroupOrder());
            }
          }
        }
        List<Row> all = new ArrayList<>(first);
        all.addAll(second);
        List<FieldVector> out = new ArrayList<>();
        m.buffers(merged.groupCount(), out);
        try (FieldVector values = out.get(0); BitVector set = (BitVector) out.get(1)) {
          assertMatches(reference(all, ignoreNulls), merged, values, set);
        }
      }
    }
  }

  @Test
  void globalAggregateOverNoRowsIsUnset() {
    FunctionSpec s = KernelHarness.spec(LastFunction.LAST, false, true, DataTypes.StringType,
        DataTypes.StringType, DataTypes.BooleanType);
    try (AggregateKernel k = s.newKernel(allocator, "UTC")) {
      List<FieldVector> out = new ArrayList<>();
      k.buffers(1, out);
      try (FieldVector values = out.get(0); BitVector set = (BitVector) out.get(1)) {
        assertEquals(1, values.getValueCount());
        assertEquals(true, values.isNull(0));
        assertEquals(0, set.get(0));
      }
    }
  }
}
