package io.rowmatch.core.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.rowmatch.core.ArrayEquals;
import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.core.testing.ArrayCases;
import io.rowmatch.core.testing.ReferenceArrayEquals;

/**
 * Differential fuzz: ArrayEquals (every path: chosen, forced scalar, forced runs) against the
 * element-by-element {@link ReferenceArrayEquals}, over every supported type, random null patterns,
 * garbage under nulls, NaN payloads, signed zeros, all four option pairs, non-zero starts and slices.
 */
class ArrayEqualsFuzzTest extends AllocatorTest {
  private static final int[] PATHS = {RunPath.AUTO, RunPath.SCALAR, RunPath.FORCE_RUNS};
  private static final int[] SIZES = {0, 1, 4, 8, 63, 64, 65, 100, 130, 257, 1000};


  static List<ArrayCases.Case> cases() {
    return ArrayCases.all();
  }

  /** Null patterns: 0 none, 1 all, 2 alternating, 3 clustered, 4 runs of exactly 8, 5 fragmented prefix then long runs, 6 random. */
  static boolean[] validity(int pattern, int n, Random rnd) {
    boolean[] valid = new boolean[n];
    double p = rnd.nextDouble();
    for (int i = 0; i < n; i++) {
      switch (pattern) {
        case 0: valid[i] = true; break;
        case 1: valid[i] = false; break;
        case 2: valid[i] = (i & 1) == 0; break;
        case 3: valid[i] = (i / 20) % 3 != 2; break;
        case 4: valid[i] = (i / 8) % 2 == 0; break;
        case 5: valid[i] = i < n / 3 ? (i % 3 == 0) : (i / 50) % 5 != 4; break;
        default: valid[i] = rnd.nextDouble() < p; break;
      }
    }
    return valid;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void matchesTheReference(ArrayCases.Case c) {
    Random rnd = new Random(c.name().hashCode());
    int iterations = 60;
    for (int it = 0; it < iterations; it++) {
      int n = it < SIZES.length ? SIZES[it] : SIZES[rnd.nextInt(SIZES.length)];
      int shift = rnd.nextBoolean() ? 0 : rnd.nextInt(70);
      int pattern = rnd.nextInt(7);
      int[] ks = new int[n];
      for (int i = 0; i < n; i++) {
        ks[i] = rnd.nextInt(rnd.nextBoolean() ? 3 : 40);
      }
      boolean[] valid = validity(pattern, n, rnd);
      // Right: a random prefix of `shift` values, then the left's values, maybe with one change.
      int[] rks = new int[n + shift];
      boolean[] rvalid = new boolean[n + shift];
      for (int i = 0; i < shift; i++) {
        rks[i] = rnd.nextInt(40);
        rvalid[i] = rnd.nextBoolean();
      }
      System.arraycopy(ks, 0, rks, shift, n);
      System.arraycopy(valid, 0, rvalid, shift, n);
      int change = rnd.nextInt(5);
      if (change == 4) {
        // Swap values for their partners (k ^ 1): for floats, the other zero or another NaN payload.
        for (int i = shift; i < n + shift; i++) {
          if (rnd.nextInt(4) == 0) {
            rks[i] ^= 1;
          }
        }
      } else if (n > 0 && change > 0) {
        int at = change == 1 ? shift + n - 1 : shift + rnd.nextInt(n);
        if (rnd.nextBoolean()) {
          rvalid[at] = !rvalid[at];
        } else {
          rks[at] = rnd.nextInt(40);
        }
      }
      boolean nansEqual = rnd.nextBoolean();
      boolean signedZerosEqual = rnd.nextBoolean();
      ReferenceArrayEquals ref = new ReferenceArrayEquals(nansEqual, signedZerosEqual);
      ArrayEquals.Options options = new ArrayEquals.Options(nansEqual, signedZerosEqual);
      try (ValueVector l = ArrayCases.build(c, allocator, ks, valid, garbage(n, rnd));
           ValueVector r = ArrayCases.build(c, allocator, rks, rvalid, garbage(n + shift, rnd))) {
        String what = c.name() + " n=" + n + " shift=" + shift + " pattern=" + pattern + " change=" + change
            + " nansEqual=" + nansEqual + " signedZerosEqual=" + signedZerosEqual;
        // Whole arrays (different lengths when shift > 0).
        assertEquals(ref.equals(l, r), ArrayEquals.equals(l, r, options), what);
        assertEquals(ref.equals(l, l), ArrayEquals.equals(l, l, options), what + " (self)");
        // The aligned ranges, through every path.
        boolean expected = ref.rangeEquals(l, 0, r, shift, n);
        if (change == 0) {
          // Same logical values: unequal only by NaN / signed-zero rules.
          assertEquals(ref.rangeEquals(l, 0, l, 0, n), expected, what + " (reference sanity)");
        }
        for (int path : PATHS) {
          assertEquals(expected, ArrayRangeEquality.equal(l, 0, r, shift, n, nansEqual, signedZerosEqual, path),
              what + " path=" + path);
        }
        // A random sub-range at non-zero starts.
        if (n > 0) {
          int a = rnd.nextInt(n);
          int len = rnd.nextInt(n - a + 1);
          for (int path : PATHS) {
            assertEquals(ref.rangeEquals(l, a, r, a + shift, len),
                ArrayRangeEquality.equal(l, a, r, a + shift, len, nansEqual, signedZerosEqual, path),
                what + " range a=" + a + " len=" + len + " path=" + path);
          }
          assertEquals(ref.rangeEquals(l, a, r, a + shift, len),
              ArrayEquals.rangeEquals(l, a, r, a + shift, len, options), what + " rangeEquals");
          checkSlices(c, l, a, r, a + shift, len, ref, options, what);
        }
      }
    }
  }

  /** The same ranges as sliced vectors (splitAndTransfer): bit offsets and offsets rebased by Arrow. */
  private void checkSlices(ArrayCases.Case c, ValueVector l, int a, ValueVector r, int b, int len,
      ReferenceArrayEquals ref, ArrayEquals.Options options, String what) {
    if (c.name().startsWith("view")) {
      return; // Arrow Java 18 does not split view vectors at arbitrary starts reliably; covered by ranges.
    }
    TransferPair lt = l.getTransferPair(allocator);
    TransferPair rt = r.getTransferPair(allocator);
    lt.splitAndTransfer(a, len);
    rt.splitAndTransfer(b, len);
    try (ValueVector ls = lt.getTo(); ValueVector rs = rt.getTo()) {
      boolean expected = ref.rangeEquals(l, a, r, b, len);
      assertEquals(expected, ref.equals(ls, rs), what + " slice reference");
      assertEquals(expected, ArrayEquals.equals(ls, rs, options), what + " slice a=" + a + " b=" + b + " len=" + len);
    }
  }

  private static int[] garbage(int n, Random rnd) {
    if (rnd.nextBoolean()) {
      return null;
    }
    int[] g = new int[n];
    for (int i = 0; i < n; i++) {
      g[i] = rnd.nextInt(40);
    }
    return g;
  }

  @Test
  void everyPathRanDuringTheFuzz() {
    RunPath.countPaths = true;
    RunPath.resetCounts();
    try {
      for (ArrayCases.Case c : ArrayCases.all()) {
        if (c.name().contains("varchar") || c.name().contains("varbinary")) {
          matchesTheReference(c);
        }
      }
      assertTrue(RunPath.scalarCount > 0, "scalar path ran " + RunPath.scalarCount);
      assertTrue(RunPath.singleRunCount > 0, "single-run path ran " + RunPath.singleRunCount);
      assertTrue(RunPath.multiRunCount > 0, "multi-run path ran " + RunPath.multiRunCount);
    } finally {
      RunPath.countPaths = false;
    }
  }
}
