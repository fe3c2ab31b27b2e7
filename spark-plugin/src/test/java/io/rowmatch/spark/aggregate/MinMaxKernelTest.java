package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * min/max over string, binary, boolean and decimal (long path p <= 18, 128-bit path above) against a slow
 * reference ordering: raw rows in batches, then the partial results of two partitions merged.
 */
class MinMaxKernelTest extends AllocatorTest {
  private static final int[] BATCH_SIZES = {0, 1, 63, 64, 65, 9, 300};


  /** Byte order as Spark's UTF8String.binaryCompare / ByteArray.compareBinary: unsigned, prefix first. */
  static int compareUnsignedSlow(byte[] a, byte[] b) {
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      int x = a[i] & 0xff;
      int y = b[i] & 0xff;
      if (x != y) {
        return x - y;
      }
    }
    return a.length - b.length;
  }

  /**
   * Runs min or max over `rows` (key, value) raw in batches, checks against the reference, then merges two
   * partitions' results and checks again. toVector builds a batch; normalize maps values to what
   * getObject reads back.
   */
  private <T> void check(FunctionKernel kind, DataType type, List<int[]> keysList, List<T> values,
      Comparator<T> order, BiFunction<BufferAllocator, List<T>, FieldVector> toVector,
      Function<T, Object> normalize, Random rnd) {
    boolean max = kind.toString().startsWith("MAX");
    Map<Integer, T> expected = new HashMap<>();
    Map<Integer, Boolean> seen = new HashMap<>();
    int[] keys = keysList.get(0);
    for (int i = 0; i < keys.length; i++) {
      seen.put(keys[i], true);
      T v = values.get(i);
      if (v == null) {
        continue;
      }
      T best = expected.get(keys[i]);
      if (best == null || (max ? order.compare(v, best) > 0 : order.compare(v, best) < 0)) {
        expected.put(keys[i], v);
      }
    }
    int split = rnd.nextInt(keys.length + 1);
    FunctionSpec raw = KernelHarness.spec(kind, false, false, type, type);
    FunctionSpec merge = KernelHarness.spec(kind, true, false, type, type);
    KernelHarness merged = new KernelHarness();
    KernelHarness whole = new KernelHarness();
    try (AggregateKernel all = raw.newKernel(allocator, "UTC"); AggregateKernel m = merge.newKernel(allocator, "UTC")) {
      feed(all, whole, keys, values, 0, keys.length, toVector, rnd);
      try (FieldVector result = all.result(whole.groupCount())) {
        assertResult(expected, seen, whole, result, normalize);
      }
      for (int[] range : new int[][] {{0, split}, {split, keys.length}}) {
        KernelHarness h = new KernelHarness();
        try (AggregateKernel p = raw.newKernel(allocator, "UTC")) {
          feed(p, h, keys, values, range[0], range[1], toVector, rnd);
          List<FieldVector> buffers = new ArrayList<>();
          p.buffers(h.groupCount(), buffers);
          try (FieldVector b = buffers.get(0)) {
            merged.feed(m, new ValueVector[] {b}, h.keysInGroupOrder());
          }
        }
      }
      try (FieldVector result = m.result(merged.groupCount())) {
        assertResult(expected, seen, merged, result, normalize);
      }
    }
  }

  private <T> void feed(AggregateKernel k, KernelHarness h, int[] keys, List<T> values, int from, int to,
      BiFunction<BufferAllocator, List<T>, FieldVector> toVector, Random rnd) {
    int at = from;
    while (at < to) {
      int size = Math.min(to - at, BATCH_SIZES[rnd.nextInt(BATCH_SIZES.length)]);
      int[] batchKeys = java.util.Arrays.copyOfRange(keys, at, at + size);
      try (FieldVector v = toVector.apply(allocator, values.subList(at, at + size))) {
        h.feed(k, new ValueVector[] {v}, batchKeys);
      }
      at += size;
    }
  }

  private static <T> void assertResult(Map<Integer, T> expected, Map<Integer, Boolean> seen, KernelHarness h,
      FieldVector result, Function<T, Object> normalize) {
    Map<Integer, Object> got = h.read(result);
    assertEquals(seen.keySet(), got.keySet());
    for (Integer key : seen.keySet()) {
      T e = expected.get(key);
      assertEquals(e == null ? null : normalize.apply(e), got.get(key), "key " + key);
    }
  }

  private static int[] keys(Random rnd, int n, int distinct) {
    int[] k = new int[n];
    for (int i = 0; i < n; i++) {
      k[i] = rnd.nextInt(distinct);
    }
    return k;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void stringsOrderAsUnsignedBytes(boolean max) {
    Random rnd = new Random(max ? 1 : 2);
    String[] pool = {"", "a", "ab", "b", "ä", "日本", "\u0000", "a\u0000", "\uD83D\uDE00", "Z", "zz", "é"};
    for (int distinct : new int[] {1, 5, 200, 3000}) {
      int n = 4000;
      List<String> values = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (rnd.nextInt(6) == 0) {
          values.add(null);
        } else if (rnd.nextBoolean()) {
          values.add(pool[rnd.nextInt(pool.length)]);
        } else {
          // long random strings: many replacements push the arena past its compaction threshold
          StringBuilder sb = new StringBuilder();
          int len = rnd.nextInt(120);
          for (int c = 0; c < len; c++) {
            sb.append(pool[rnd.nextInt(pool.length)]);
          }
          values.add(sb.toString());
        }
      }
      check(max ? MinMaxFunction.MAX_BYTES : MinMaxFunction.MIN_BYTES, DataTypes.StringType,
          List.of(keys(rnd, n, distinct)), values,
          (a, b) -> compareUnsignedSlow(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)),
          TestVectors::strings, s -> s, rnd);
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void monotoneInputReplacesEveryRowAndCompacts(boolean max) {
    // Every row beats the group's current extreme: the arena fills with garbage and must compact.
    Random rnd = new Random(5);
    int n = 20000;
    List<String> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String digits = String.format("%08d", max ? i : n - i);
      values.add(digits + "x".repeat(40));
    }
    check(max ? MinMaxFunction.MAX_BYTES : MinMaxFunction.MIN_BYTES, DataTypes.StringType,
        List.of(keys(rnd, n, 7)), values,
        (a, b) -> compareUnsignedSlow(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)),
        TestVectors::strings, s -> s, rnd);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void binaryOrdersAsUnsignedBytes(boolean max) {
    Random rnd = new Random(max ? 3 : 4);
    int n = 3000;
    List<byte[]> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (rnd.nextInt(7) == 0) {
        values.add(null);
        continue;
      }
      byte[] b = new byte[rnd.nextInt(5)];
      for (int j = 0; j < b.length; j++) {
        b[j] = (byte) new int[] {0, 1, 0x7f, 0x80, 0xff}[rnd.nextInt(5)];
      }
      values.add(b);
    }
    check(max ? MinMaxFunction.MAX_BYTES : MinMaxFunction.MIN_BYTES, DataTypes.BinaryType,
        List.of(keys(rnd, n, 50)), values, MinMaxKernelTest::compareUnsignedSlow, TestVectors::binaries,
        KernelHarness::normalize, rnd);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void booleansOrderFalseBeforeTrue(boolean max) {
    Random rnd = new Random(max ? 6 : 7);
    int n = 1000;
    List<Boolean> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add(rnd.nextInt(4) == 0 ? null : rnd.nextInt(10) == 0);
    }
    check(max ? MinMaxFunction.MAX_LONG : MinMaxFunction.MIN_LONG, DataTypes.BooleanType,
        List.of(keys(rnd, n, 60)), values, Boolean::compare, TestVectors::booleans, b -> b, rnd);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 9, 18, 19, 30, 38})
  void decimalsOrderByValueAtEveryPrecision(int precision) {
    for (boolean max : new boolean[] {false, true}) {
      Random rnd = new Random(precision * 2 + (max ? 1 : 0));
      int scale = Math.min(precision, 3);
      BigInteger limit = BigInteger.TEN.pow(precision);
      int n = 2000;
      List<BigDecimal> values = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (rnd.nextInt(6) == 0) {
          values.add(null);
          continue;
        }
        BigInteger u;
        switch (rnd.nextInt(4)) {
          case 0 -> u = limit.subtract(BigInteger.ONE); // the largest magnitude
          case 1 -> u = BigInteger.valueOf(rnd.nextInt(3)); // zero, one, two
          case 2 -> u = BigInteger.ONE.shiftLeft(Math.min(64, limit.bitLength() - 1)).mod(limit); // word edges
          default -> u = new BigInteger(limit.bitLength() + 8, rnd).mod(limit);
        }
        values.add(new BigDecimal(rnd.nextBoolean() ? u.negate() : u, scale));
      }
      FunctionKernel kind = precision <= 18
          ? (max ? MinMaxFunction.MAX_LONG : MinMaxFunction.MIN_LONG)
          : (max ? MinMaxFunction.MAX_DECIMAL128 : MinMaxFunction.MIN_DECIMAL128);
      check(kind, new DecimalType(precision, scale), List.of(keys(rnd, n, 40)), values, BigDecimal::compareTo,
          (a, v) -> TestVectors.decimals(a, precision, scale, v), d -> d, rnd);
    }
  }

  @org.junit.jupiter.api.Test
  void compare128MatchesBigIntegerOrder() {
    Random rnd = new Random(9);
    long[] edges = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x8000_0000_0000_0000L, 0xffff_ffff_ffff_fffeL};
    for (int i = 0; i < 20000; i++) {
      long h1 = rnd.nextBoolean() ? edges[rnd.nextInt(edges.length)] : rnd.nextLong();
      long l1 = rnd.nextBoolean() ? edges[rnd.nextInt(edges.length)] : rnd.nextLong();
      long h2 = rnd.nextInt(3) == 0 ? h1 : (rnd.nextBoolean() ? edges[rnd.nextInt(edges.length)] : rnd.nextLong());
      long l2 = rnd.nextBoolean() ? edges[rnd.nextInt(edges.length)] : rnd.nextLong();
      int expected = Integer.signum(big(h1, l1).compareTo(big(h2, l2)));
      assertEquals(expected, Integer.signum(MinMaxDecimal128Kernel.compare128(h1, l1, h2, l2)));
    }
    assertTrue(MinMaxDecimal128Kernel.compare128(0, -1L, 1, 0) < 0); // low word is unsigned
  }

  private static BigInteger big(long high, long low) {
    return BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
  }
}
