package io.rowmatch.core.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.core.testing.ArrayCases;

/**
 * The run walk of VarChar, VarBinary and their Large forms, case by case from the issue, through the
 * chosen path and both pinned ones: sizes around word edges, every null pattern, mismatches at the
 * first / middle / last value and at the last value of a run, lengths that move a boundary without
 * changing the bytes, garbage under nulls, unaligned starts.
 */
class VarWidthRunEqualityTest extends AllocatorTest {
  private static final ArrowType[] TYPES = {ArrowType.Utf8.INSTANCE, ArrowType.Binary.INSTANCE,
      ArrowType.LargeUtf8.INSTANCE, ArrowType.LargeBinary.INSTANCE};
  private static final int[] PATHS = {RunPath.AUTO, RunPath.SCALAR, RunPath.FORCE_RUNS};
  private static final int[] SIZES = {0, 1, 4, 8, 63, 64, 65, 1000, 70_000};


  static List<Arguments> typesAndPaths() {
    List<Arguments> out = new ArrayList<>();
    for (ArrowType t : TYPES) {
      for (int p : PATHS) {
        out.add(Arguments.of(t, p));
      }
    }
    return out;
  }

  /** Builds a vector of {@code values} (null = null); {@code under} writes bytes under the nulls first. */
  private ValueVector vector(ArrowType type, String[] values, String under) {
    ValueVector v = new Field("s", FieldType.nullable(type), null).createVector(allocator);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      String s = values[i] != null ? values[i] : under;
      if (s != null) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (v instanceof BaseVariableWidthVector) {
          ((BaseVariableWidthVector) v).setSafe(i, b);
        } else {
          ((BaseLargeVariableWidthVector) v).setSafe(i, b);
        }
      }
      if (values[i] == null) {
        ArrayCases.setNull(v, i);
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  private static boolean equal(ValueVector l, ValueVector r, int path) {
    return ArrayRangeEquality.equal(l, 0, r, 0, l.getValueCount(), false, true, path)
        && l.getValueCount() == r.getValueCount();
  }

  /** 32-byte values (as in the benchmark), distinct per row, with the pattern's nulls. */
  private static String[] values(int n, int pattern, long seed) {
    boolean[] valid = ArrayEqualsFuzzTest.validity(pattern, n, new Random(seed));
    String[] out = new String[n];
    for (int i = 0; i < n; i++) {
      // 32 bytes, distinct per row.
      out[i] = valid[i] ? "value-" + (100_000_000 + i) + "-" + (100_000_000_000_000_000L + i * 7919L) : null;
    }
    return out;
  }

  @ParameterizedTest(name = "{0} path {1}")
  @MethodSource("typesAndPaths")
  void sizesPatternsAndMismatches(ArrowType type, int path) {
    for (int n : SIZES) {
      for (int pattern = 0; pattern < 6; pattern++) {
        if (n > 1000 && pattern % 2 == 1) {
          continue; // the large size: a few patterns are enough
        }
        String[] v = values(n, pattern, n * 31L + pattern);
        String what = "n=" + n + " pattern=" + pattern;
        try (ValueVector l = vector(type, v, null); ValueVector r = vector(type, v, "garbage under a null")) {
          assertTrue(equal(l, r, path), what + " equal (garbage under nulls ignored)");
        }
        List<Integer> targets = mismatchTargets(v);
        for (int at : targets) {
          String[] changed = v.clone();
          char[] c = changed[at].toCharArray();
          c[c.length - 1] ^= 1;
          changed[at] = new String(c);
          try (ValueVector l = vector(type, v, null); ValueVector r = vector(type, changed, null)) {
            assertFalse(equal(l, r, path), what + " byte changed at " + at);
          }
          changed[at] = v[at] + "x";
          try (ValueVector l = vector(type, v, null); ValueVector r = vector(type, changed, null)) {
            assertFalse(equal(l, r, path), what + " longer at " + at);
          }
          changed[at] = null;
          try (ValueVector l = vector(type, v, null); ValueVector r = vector(type, changed, v[at])) {
            assertFalse(equal(l, r, path), what + " null at " + at + " (same bytes underneath)");
          }
        }
      }
    }
  }

  /** First, middle and last valid values, and the last value of the first run followed by a null. */
  private static List<Integer> mismatchTargets(String[] v) {
    List<Integer> valid = new ArrayList<>();
    int lastOfRun = -1;
    for (int i = 0; i < v.length; i++) {
      if (v[i] != null) {
        valid.add(i);
        if (lastOfRun < 0 && i + 1 < v.length && v[i + 1] == null) {
          lastOfRun = i;
        }
      }
    }
    List<Integer> out = new ArrayList<>();
    if (!valid.isEmpty()) {
      out.add(valid.get(0));
      out.add(valid.get(valid.size() / 2));
      out.add(valid.get(valid.size() - 1));
    }
    if (lastOfRun >= 0) {
      out.add(lastOfRun);
    }
    return out;
  }

  @ParameterizedTest(name = "{0} path {1}")
  @MethodSource("typesAndPaths")
  void sameBytesDifferentBoundariesDiffer(ArrowType type, int path) {
    try (ValueVector l = vector(type, new String[] {"ab", "c"}, null);
         ValueVector r = vector(type, new String[] {"a", "bc"}, null)) {
      assertFalse(equal(l, r, path));
    }
    // The same inside long runs, and at a run's edge: the run's last value gives a byte to the next run.
    for (int at : new int[] {0, 40, 98}) {
      String[] a = values(200, 4, 1);
      String[] b = a.clone();
      int k = at;
      while (a[k] == null || a[k + 1] == null) {
        k++;
      }
      b[k] = a[k] + a[k + 1].charAt(0);
      b[k + 1] = a[k + 1].substring(1);
      try (ValueVector l = vector(type, a, null); ValueVector r = vector(type, b, null)) {
        assertFalse(equal(l, r, path), "boundary moved at " + k);
      }
    }
    // Length mismatch at a run edge: the run's total differs by one byte.
    String[] a = values(200, 4, 2);
    String[] b = a.clone();
    b[7] = a[7].substring(1); // rows 0..7 are the first run of exactly 8
    try (ValueVector l = vector(type, a, null); ValueVector r = vector(type, b, null)) {
      assertFalse(equal(l, r, path));
    }
  }

  @ParameterizedTest(name = "{0} path {1}")
  @MethodSource("typesAndPaths")
  void unalignedStartsAndRanges(ArrowType type, int path) {
    String[] base = values(300, 5, 3);
    String[] shifted = new String[base.length + 13];
    for (int i = 0; i < 13; i++) {
      shifted[i] = i % 2 == 0 ? "pre" + i : null;
    }
    System.arraycopy(base, 0, shifted, 13, base.length);
    try (ValueVector l = vector(type, base, null); ValueVector r = vector(type, shifted, "junk")) {
      for (int start : new int[] {0, 1, 7, 63, 64, 65, 130}) {
        int len = base.length - start;
        assertTrue(ArrayRangeEquality.equal(l, start, r, start + 13, len, false, true, path), "start " + start);
        assertFalse(ArrayRangeEquality.equal(l, start, r, start + 12, len - 1, false, true, path),
            "off by one at start " + start);
      }
    }
  }

  @Test
  void theChoiceFollowsLengthAndFragmentation() {
    RunPath.countPaths = true;
    try {
      assertPath(RunPath.SCALAR, values(8, 2, 0), "short array");
      assertPath(RunPath.SCALAR, values(RunPath.SHORT_CUTOFF - 1, 3, 0), "just under the cutoff");
      assertPath(RunPath.SINGLE_RUN, values(1000, 0, 0), "no nulls");
      assertPath(RunPath.MULTI_RUN, values(1000, 3, 0), "clustered nulls");
      assertPath(RunPath.MULTI_RUN, values(1000, 4, 0), "runs of exactly 8");
      assertPath(RunPath.SCALAR, values(1000, 2, 0), "alternating nulls");
      assertPath(RunPath.MULTI_RUN, values(1000, 5, 0), "fragmented prefix then long runs");
    } finally {
      RunPath.countPaths = false;
    }
  }

  private void assertPath(int expected, String[] v, String what) {
    RunPath.resetCounts();
    try (ValueVector l = vector(ArrowType.Utf8.INSTANCE, v, null); ValueVector r = vector(ArrowType.Utf8.INSTANCE, v, "u")) {
      assertTrue(equal(l, r, RunPath.AUTO), what);
    }
    long[] counts = {RunPath.scalarCount, RunPath.singleRunCount, RunPath.multiRunCount};
    long[] want = new long[3];
    want[expected] = 1;
    assertEquals(List.of(want[0], want[1], want[2]), List.of(counts[0], counts[1], counts[2]), what);
  }
}
