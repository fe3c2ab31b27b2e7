package io.rowmatch.core.table;

import static io.rowmatch.core.testing.TestVectors.ints;
import static io.rowmatch.core.testing.TestVectors.longs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.core.testing.SupportedTypes;

/**
 * A join table ordered by a band column, probed with {@link JoinProbe#narrowToBand}: the pairs must be exactly the
 * key-equal pairs whose band values compare as asked (nulls comparing as nothing), against the obvious nested loop,
 * over random keys with duplicates, random band values with nulls and ties, and sizes 0/1/63/64/65.
 */
class JoinTableBandTest extends AllocatorTest {
  private static boolean holds(JoinProbe.Band op, int build, int probe) {
    return switch (op) {
      case LESS -> build < probe;
      case LESS_OR_EQUAL -> build <= probe;
      case GREATER -> build > probe;
      case GREATER_OR_EQUAL -> build >= probe;
    };
  }

  private static Integer[] random(Random rnd, int n, int domain, double nulls) {
    Integer[] v = new Integer[n];
    for (int i = 0; i < n; i++) {
      v[i] = rnd.nextDouble() < nulls ? null : rnd.nextInt(domain) - domain / 2;
    }
    return v;
  }

  private static long[] keys(Random rnd, int n, int domain) {
    long[] k = new long[n];
    for (int i = 0; i < n; i++) {
      k[i] = rnd.nextInt(domain);
    }
    return k;
  }

  @Test
  void narrowedPairsAreTheKeyEqualPairsTheComparisonHoldsFor() {
    Random rnd = new Random(72);
    int[] sizes = {0, 1, 63, 64, 65, 300};
    for (int round = 0; round < 60; round++) {
      int buildN = sizes[round % sizes.length];
      int probeN = sizes[(round / sizes.length) % sizes.length];
      int keyDomain = 1 + rnd.nextInt(round % 2 == 0 ? 5 : 40);
      int valueDomain = 1 + rnd.nextInt(round % 3 == 0 ? 4 : 1000);
      long[] buildKeys = keys(rnd, buildN, keyDomain);
      long[] probeKeys = keys(rnd, probeN, keyDomain);
      Integer[] buildValues = random(rnd, buildN, valueDomain, 0.1);
      Integer[] probeValues = random(rnd, probeN, valueDomain, 0.1);
      for (JoinProbe.Band op : JoinProbe.Band.values()) {
        try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
            new boolean[] {false}, "band"); BigIntVector bk = longs(allocator, buildKeys);
            IntVector bv = ints(allocator, buildValues); BigIntVector pk = longs(allocator, probeKeys);
            IntVector pv = ints(allocator, probeValues)) {
          t.addBatch(List.of(bk), buildN);
          t.finish();
          boolean ordered = t.orderRowsWithinKeys(bv);
          // A table whose keys are all distinct is left as it is (at most one pair per probe row).
          assertEquals(t.distinctKeyCount() != buildN, ordered, "ordered unless every key is unique");
          assertTrue(t.orderRowsWithinKeys(bv) == ordered, "a second call with the same column does nothing");
          JoinProbe probe = t.newProbe();
          probe.lookup(List.of(pk), probeN);
          probe.narrowToBand(pv, op);
          List<String> got = new ArrayList<>();
          int[] pr = new int[7];
          int[] br = new int[7];
          for (int m = probe.nextPairs(pr, br); m > 0; m = probe.nextPairs(pr, br)) {
            for (int k = 0; k < m; k++) {
              got.add(pr[k] + ":" + br[k]);
            }
          }
          List<String> expected = new ArrayList<>();
          for (int p = 0; p < probeN; p++) {
            for (int b = 0; b < buildN; b++) {
              // Unordered (unique keys): every key-equal pair comes, the caller's condition decides.
              boolean inBand = !ordered || (buildValues[b] != null && probeValues[p] != null
                  && holds(op, buildValues[b], probeValues[p]));
              if (probeKeys[p] == buildKeys[b] && inBand) {
                expected.add(p + ":" + b);
              }
            }
          }
          got.sort(null);
          expected.sort(null);
          assertEquals(expected, got, "round " + round + " " + op + ": " + buildN + " build, " + probeN + " probe");
        }
      }
    }
  }

  @Test
  void pairsOfAProbeRowComeInBandOrder() {
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
        new boolean[] {false}, "order"); BigIntVector bk = longs(allocator, 1, 1, 1, 1, 2);
        IntVector bv = ints(allocator, 30, null, 10, 20, 5); BigIntVector pk = longs(allocator, 1, 1);
        IntVector pv = ints(allocator, 25, null)) {
      t.addBatch(List.of(bk), 5);
      t.finish();
      assertTrue(t.orderRowsWithinKeys(bv));
      JoinProbe probe = t.newProbe();
      probe.lookup(List.of(pk), 2);
      probe.narrowToBand(pv, JoinProbe.Band.LESS);
      int[] pr = new int[8];
      int[] br = new int[8];
      int m = probe.nextPairs(pr, br);
      // Build rows 2 (10) and 3 (20) are below 25; the null-valued row 1 and 30 are not; a null probe value meets none.
      assertEquals(2, m);
      assertEquals(List.of(0, 0), List.of(pr[0], pr[1]));
      assertEquals(List.of(2, 3), List.of(br[0], br[1]));
      assertTrue(probe.hasMatch(1), "the key still matched");
      assertEquals(0, probe.matchCount(1));
    }
  }

  @Test
  void wrongColumnsNameThemselves() {
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
        new boolean[] {false}, "errors"); BigIntVector bk = longs(allocator, 1, 1, 2); BigIntVector wide = longs(
        allocator, 1, 2, 3); IntVector shortOne = ints(allocator, 1, 2); IntVector bv = ints(allocator, 1, 2, 3)) {
      t.addBatch(List.of(bk), 3);
      assertThrows(IllegalStateException.class, () -> t.orderRowsWithinKeys(bv), "not finished");
      t.finish();
      JoinProbe early = t.newProbe();
      early.lookup(List.of(bk), 3);
      assertTrue(assertThrows(IllegalStateException.class, () -> early.narrowToBand(bv, JoinProbe.Band.LESS))
          .getMessage().contains("not ordered"));
      assertTrue(assertThrows(IllegalArgumentException.class, () -> t.orderRowsWithinKeys(wide)).getMessage()
          .contains("4-byte"));
      assertTrue(assertThrows(IllegalArgumentException.class, () -> t.orderRowsWithinKeys(shortOne)).getMessage()
          .contains("2 values for 3 build rows"));
      assertTrue(t.orderRowsWithinKeys(bv));
      assertThrows(IllegalStateException.class, () -> t.orderRowsWithinKeys(shortOne), "another column");
      JoinProbe probe = t.newProbe();
      probe.lookup(List.of(bk), 3);
      assertTrue(assertThrows(IllegalArgumentException.class, () -> probe.narrowToBand(wide, JoinProbe.Band.LESS))
          .getMessage().contains("4-byte"));
      assertTrue(assertThrows(IllegalArgumentException.class, () -> probe.narrowToBand(shortOne,
          JoinProbe.Band.LESS)).getMessage().contains("2 values for 3 probe rows"));
      assertFalse(probe.matchCount(0) == 0, "a refused narrowing changes nothing");
    }
  }
}
