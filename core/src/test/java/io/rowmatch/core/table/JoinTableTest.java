package io.rowmatch.core.table;

import static io.rowmatch.core.testing.TestVectors.ints;
import static io.rowmatch.core.testing.TestVectors.longs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.LongUnaryOperator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.core.testing.RandomVectors;
import io.rowmatch.core.testing.ReferenceRowEquality;
import io.rowmatch.core.testing.SupportedTypes;

class JoinTableTest extends AllocatorTest {
  /** One output row of a join: probe (batch, row) or none, build row or none, encoded for sorting. */
  private static String out(int probeBatch, int probeRow, int buildRow) {
    return (probeRow < 0 ? "-" : probeBatch + ":" + probeRow) + "|" + (buildRow < 0 ? "-" : String.valueOf(buildRow));
  }

  private static final String[] JOINS = {"inner", "probeOuter", "buildOuter", "full", "semi", "anti"};

  /** Probe each batch through find + lookupGroups (as a caller resolving dictionary ids does) instead of lookup. */
  private boolean probeByFind;

  private void differential(List<Field> fields, boolean nullsEq, boolean nansEq, long seed, int domain,
      int chunk, LongUnaryOperator hash) {
    boolean[] nullsEqual = new boolean[fields.size()];
    boolean[] nansEqual = new boolean[fields.size()];
    Arrays.fill(nullsEqual, nullsEq);
    Arrays.fill(nansEqual, nansEq);
    Random rnd = new Random(seed);
    RandomVectors gen = new RandomVectors(rnd, 0.15, domain);
    List<List<FieldVector>> build = new ArrayList<>();
    List<List<FieldVector>> probe = new ArrayList<>();
    int[] buildSizes = {0, 65, 1, 200};
    int[] probeSizes = {64, 0, 150, 1};
    String what = fields + " nullsEqual=" + nullsEq + " nansEqual=" + nansEq + " seed=" + seed;
    try (JoinTable table = new JoinTable(allocator, fields, nullsEqual, nansEqual, "j", hash)) {
      List<List<Object>> buildKeys = new ArrayList<>();
      for (int size : buildSizes) {
        List<FieldVector> batch = new ArrayList<>();
        for (Field f : fields) {
          batch.add(gen.create(f, size, allocator));
        }
        build.add(batch);
        assertEquals(buildKeys.size(), table.addBatch(batch, size), what);
        for (int r = 0; r < size; r++) {
          buildKeys.add(ReferenceRowEquality.key(batch, r, nullsEqual, nansEqual));
        }
      }
      table.finish();
      assertEquals(buildKeys.size(), table.buildRowCount());
      @SuppressWarnings("unchecked")
      TreeSet<String>[] want = new TreeSet[JOINS.length];
      @SuppressWarnings("unchecked")
      TreeSet<String>[] got = new TreeSet[JOINS.length];
      for (int j = 0; j < JOINS.length; j++) {
        want[j] = new TreeSet<>();
        got[j] = new TreeSet<>();
      }
      boolean[] buildMatchedRef = new boolean[buildKeys.size()];
      JoinProbe prober = table.newProbe();
      int[] pr = new int[chunk];
      int[] br = new int[chunk];
      for (int pb = 0; pb < probeSizes.length; pb++) {
        int size = probeSizes[pb];
        List<FieldVector> batch = new ArrayList<>();
        for (Field f : fields) {
          batch.add(gen.create(f, size, allocator));
        }
        probe.add(batch);
        // Reference: nested loops over boxed keys.
        for (int p = 0; p < size; p++) {
          List<Object> key = ReferenceRowEquality.key(batch, p, nullsEqual, nansEqual);
          boolean any = false;
          for (int b = 0; b < buildKeys.size(); b++) {
            if (key.equals(buildKeys.get(b))) {
              any = true;
              buildMatchedRef[b] = true;
              for (int j : new int[] {0, 1, 2, 3}) {
                want[j].add(out(pb, p, b));
              }
            }
          }
          if (any) {
            want[4].add(out(pb, p, -1));
          } else {
            want[1].add(out(pb, p, -1));
            want[3].add(out(pb, p, -1));
            want[5].add(out(pb, p, -1));
          }
        }
        // Under test.
        if (probeByFind) {
          // An unrelated batch first: find must mark no build row (the matched flags are checked below).
          List<FieldVector> other = new ArrayList<>();
          for (Field f : fields) {
            other.add(gen.create(f, 40, allocator));
          }
          probe.add(other);
          prober.find(other, 40, new int[40]);
          // Rows numbered as a dictionary would: value v's group at groups[v], the rows' values in reverse.
          int[] groups = new int[size + 3];
          prober.find(batch, size, groups);
          int[] reversed = new int[size];
          int[] valueOfRow = new int[size];
          for (int i = 0; i < size; i++) {
            reversed[size - 1 - i] = groups[i];
            valueOfRow[i] = size - 1 - i;
          }
          prober.lookupGroups(reversed, valueOfRow, size);
        } else {
          prober.lookup(batch, size);
        }
        int pairs = 0;
        int n;
        int lastProbe = -1;
        while ((n = prober.nextPairs(pr, br)) > 0) {
          assertTrue(n <= chunk);
          for (int k = 0; k < n; k++) {
            assertTrue(pr[k] >= lastProbe, "pairs come in probe-row order");
            lastProbe = pr[k];
            for (int j : new int[] {0, 1, 2, 3}) {
              assertTrue(got[j].add(out(pb, pr[k], br[k])), "pair handed out twice");
            }
          }
          pairs += n;
        }
        assertEquals(0, prober.nextPairs(pr, br));
        int matchSum = 0;
        for (int p = 0; p < size; p++) {
          matchSum += prober.matchCount(p);
          if (prober.hasMatch(p)) {
            got[4].add(out(pb, p, -1));
          } else {
            assertEquals(0, prober.matchCount(p));
            got[1].add(out(pb, p, -1));
            got[3].add(out(pb, p, -1));
            got[5].add(out(pb, p, -1));
          }
        }
        assertEquals(pairs, matchSum, what);
      }
      for (int b = 0; b < buildKeys.size(); b++) {
        assertEquals(buildMatchedRef[b], table.buildRowMatched(b), what + " build row " + b);
        if (!buildMatchedRef[b]) {
          want[2].add(out(0, -1, b));
          want[3].add(out(0, -1, b));
        }
      }
      int from = 0;
      int n;
      while ((n = table.unmatchedBuildRows(from, pr)) > 0) {
        for (int k = 0; k < n; k++) {
          got[2].add(out(0, -1, pr[k]));
          got[3].add(out(0, -1, pr[k]));
        }
        from = pr[n - 1] + 1;
      }
      for (int j = 0; j < JOINS.length; j++) {
        assertEquals(want[j], got[j], what + " join " + JOINS[j]);
      }
    } finally {
      build.forEach(b -> b.forEach(FieldVector::close));
      probe.forEach(b -> b.forEach(FieldVector::close));
    }
  }

  /**
   * An int key table larger than a core's cache (40K distinct keys spread over the int range, so no direct index)
   * probed in the passes 8-byte keys take, against a map of the build rows per key: negative keys, absent keys,
   * nulls, batch sizes around a word's 64 rows.
   */
  @Test
  void largeIntKeyTableFindsEveryRowOfItsKey() {
    Random rnd = new Random(41);
    int buildN = 60_000;
    Integer[] build = new Integer[buildN];
    java.util.Map<Integer, List<Integer>> rowsOf = new java.util.HashMap<>();
    for (int r = 0; r < buildN; r++) {
      build[r] = r % 50 == 0 ? null : (rnd.nextInt(40_000) - 20_000) * 104_729;
      if (build[r] != null) {
        rowsOf.computeIfAbsent(build[r], k -> new ArrayList<>()).add(r);
      }
    }
    try (JoinTable t = new JoinTable(allocator, List.of(new Field("k", org.apache.arrow.vector.types.pojo.FieldType
        .nullable(new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true)), null)), new boolean[] {false},
        new boolean[] {false}, "large int keys"); IntVector b = ints(allocator, build)) {
      t.addBatch(List.of(b), buildN);
      t.finish();
      assertTrue(t.slotCapacity() > 1 << 15, "a table larger than the cached size: " + t.slotCapacity());
      JoinProbe probe = t.newProbe();
      for (int n : new int[] {1, 63, 64, 65, 4096}) {
        Integer[] keys = new Integer[n];
        for (int i = 0; i < n; i++) {
          keys[i] = i % 7 == 3 ? null : rnd.nextBoolean() ? build[rnd.nextInt(buildN)] : Integer.valueOf(rnd.nextInt());
        }
        try (IntVector p = ints(allocator, keys)) {
          probe.lookup(List.of(p), n);
          int[] pr = new int[100];
          int[] br = new int[100];
          List<List<Integer>> got = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            got.add(new ArrayList<>());
          }
          for (int m = probe.nextPairs(pr, br); m > 0; m = probe.nextPairs(pr, br)) {
            for (int k = 0; k < m; k++) {
              got.get(pr[k]).add(br[k]);
            }
          }
          for (int i = 0; i < n; i++) {
            List<Integer> expected = keys[i] == null ? List.of() : rowsOf.getOrDefault(keys[i], List.of());
            assertEquals(expected, got.get(i), "probe row " + i + " of " + n + ", key " + keys[i]);
            assertEquals(!expected.isEmpty(), probe.hasMatch(i));
          }
        }
      }
    }
  }

  @Test
  void everyJoinTypeMatchesNestedLoopsForEveryKeyType() {
    long seed = 500;
    for (Field f : SupportedTypes.all()) {
      for (boolean nullsEq : new boolean[] {true, false}) {
        for (boolean nansEq : new boolean[] {true, false}) {
          differential(List.of(f), nullsEq, nansEq, seed++, 5, 7, null);
          differential(List.of(f), nullsEq, nansEq, seed++, 30, 1000, null);
        }
      }
    }
  }

  @Test
  void findThenLookupGroupsEqualsLookup() {
    probeByFind = true;
    long seed = 700;
    for (Field f : SupportedTypes.all()) {
      for (boolean nullsEq : new boolean[] {true, false}) {
        differential(List.of(f), nullsEq, true, seed++, 5, 7, null);
        differential(List.of(f), nullsEq, false, seed++, 30, 1000, null);
      }
    }
    Random pick = new Random(19);
    for (int trial = 0; trial < 10; trial++) {
      differential(SupportedTypes.pick(pick, 2), pick.nextBoolean(), pick.nextBoolean(), 2500 + trial, 5, 9,
          trial % 2 == 0 ? h -> h & 7 : null);
    }
    // Unique keys (the pair loop without ranges) and a dense integral index.
    differential(List.of(SupportedTypes.bigint("k")), false, false, 3050, 1_000_000, 13, null);
    differential(List.of(SupportedTypes.bigint("k")), false, false, 3051, 50, 13, null);
  }

  @Test
  void lookupGroupsRejectsAGroupTheTableDoesNotHave() {
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
        new boolean[] {false}, "g"); BigIntVector b = longs(allocator, 3, 1, 2)) {
      t.addBatch(List.of(b), 3);
      t.finish();
      JoinProbe probe = t.newProbe();
      int[] values = {0, 1, 2};
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> probe.lookupGroups(new int[] {0, -1, 3}, values, 3));
      assertTrue(e.getMessage().contains("probe row 2's group 3 is outside [-1, 3)"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> probe.lookupGroups(new int[] {-2}, values, 1));
      assertThrows(IllegalArgumentException.class, () -> probe.lookupGroups(new int[] {0}, new int[] {0}, 2));
      assertThrows(ArrayIndexOutOfBoundsException.class, () -> probe.lookupGroups(new int[] {0}, values, 2));
      assertFalse(t.buildRowMatched(0), "a rejected batch marks nothing");
      probe.lookupGroups(new int[] {2, -1, 0}, values, 3);
      assertEquals(1, probe.matchCount(0));
      assertFalse(probe.hasMatch(1));
      assertTrue(t.buildRowMatched(2) && t.buildRowMatched(0) && !t.buildRowMatched(1));
    }
  }

  @Test
  void multiColumnKeysAndForcedCollisions() {
    Random pick = new Random(9);
    for (int trial = 0; trial < 30; trial++) {
      List<Field> fields = SupportedTypes.pick(pick, 2 + pick.nextInt(2));
      LongUnaryOperator hash = trial % 3 == 0 ? h -> 0L : trial % 3 == 1 ? h -> h & 7 : null;
      differential(fields, pick.nextBoolean(), pick.nextBoolean(), 2000 + trial, 4 + pick.nextInt(4),
          1 + pick.nextInt(50), hash);
    }
  }

  @Test
  void uniqueBuildKeys() {
    // Keys from a huge domain are (almost surely) unique; with nulls never equal, null rows are unique too.
    for (int seed = 0; seed < 6; seed++) {
      differential(List.of(SupportedTypes.bigint("k")), false, false, 3000 + seed, 1_000_000, 13, null);
      differential(List.of(SupportedTypes.bigint("k"), SupportedTypes.utf8("s")), false, true, 3100 + seed, 1_000_000, 5,
          h -> h & 15);
    }
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
        new boolean[] {false}, "u"); BigIntVector b = longs(allocator, 3, 1, 2); BigIntVector p = longs(allocator, 2, 2, 9, 3)) {
      t.addBatch(List.of(b), 3);
      t.finish();
      assertEquals(3, t.distinctKeyCount());
      JoinProbe probe = t.newProbe();
      probe.lookup(List.of(p), 4);
      int[] pr = new int[10];
      int[] br = new int[10];
      assertEquals(3, probe.nextPairs(pr, br));
      assertEquals(List.of(0, 1, 3), List.of(pr[0], pr[1], pr[2]));
      assertEquals(List.of(2, 2, 0), List.of(br[0], br[1], br[2]));
      assertEquals(1, t.unmatchedBuildRows(0, br));
      assertEquals(1, br[0]);
    }
  }

  /**
   * One integral key column with nulls never equal takes FixedKeyLookup's fused loop: every such type, with
   * the real hash and with forced collisions (all rows in one probe chain, or eight), against nested loops.
   */
  @Test
  void singleIntegralKeyFusedLookupMatchesNestedLoops() {
    long seed = 7000;
    int covered = 0;
    for (Field f : IntegralKeyTypes.all(allocator)) {
      covered++;
      for (LongUnaryOperator hash : new LongUnaryOperator[] {null, h -> 0L, h -> h & 7}) {
        differential(List.of(f), false, false, seed++, 5, 7, hash);
        differential(List.of(f), false, true, seed++, 300, 64, hash);
      }
    }
    assertTrue(covered >= 2, "bigint and int keys at least; got " + covered);
  }

  /**
   * Two or three integral key columns build and probe through FixedKeyColumns (a null key, never equal, matches
   * nothing; null-safe keys with a null take the general path): pairs and triples of every such type, with the
   * real hash and forced collisions, against nested loops.
   */
  @Test
  void integralKeyColumnsMatchNestedLoops() {
    List<Field> fixed = IntegralKeyTypes.all(allocator);
    long seed = 8000;
    for (int a = 0; a < fixed.size(); a++) {
      Field first = fixed.get(a);
      Field second = fixed.get((a + 1) % fixed.size());
      Field third = fixed.get((a + 3) % fixed.size());
      List<Field> pair = List.of(new Field("k0", first.getFieldType(), null), new Field("k1", second.getFieldType(), null));
      List<Field> triple = List.of(pair.get(0), pair.get(1), new Field("k2", third.getFieldType(), null));
      for (LongUnaryOperator hash : new LongUnaryOperator[] {null, h -> 0L, h -> h & 7}) {
        for (boolean nullsEq : new boolean[] {false, true}) {
          differential(pair, nullsEq, false, seed++, 4, 7, hash);
          differential(triple, nullsEq, false, seed++, 3, 64, hash);
        }
      }
    }
  }

  /**
   * A probe column of NullVector (Spark's NULL literal key) against an integral table, dense-indexed or hashed:
   * nothing matches.
   */
  @Test
  void nullVectorProbeOfAnIntegralTableMatchesNothing() {
    for (long third : new long[] {2, 1L << 40}) {
      try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
          new boolean[] {false}, "n"); BigIntVector b = longs(allocator, 0, 1, third); NullVector p = new NullVector("p", 4)) {
        t.addBatch(List.of(b), 3);
        t.finish();
        assertEquals(third == 2, t.dense() != null);
        JoinProbe probe = t.newProbe();
        probe.lookup(List.of(p), 4);
        for (int i = 0; i < 4; i++) {
          assertFalse(probe.hasMatch(i));
        }
        assertEquals(0, probe.nextPairs(new int[4], new int[4]));
      }
    }
  }

  /** A pair limit below the arrays' length hands out the same pairs in the same order, at most limit at a time. */
  /** Unique build keys (each key one build row) take their own pair path: same pairs, order and counts. */
  @Test
  void uniqueBuildKeysGiveOnePairPerMatchedProbeRowUnderEveryLimit() {
    Random rnd = new Random(11);
    for (int buildSize : new int[] {1, 63, 64, 65, 1000}) {
      for (boolean dense : new boolean[] {true, false}) {
        // Dense: keys 0..n-1 shuffled (a direct-address index); sparse: spread over the long range (hashed).
        long[] keys = new long[buildSize];
        for (int i = 0; i < buildSize; i++) {
          keys[i] = dense ? i : rnd.nextLong();
        }
        for (int i = buildSize - 1; i > 0; i--) {
          int j = rnd.nextInt(i + 1);
          long t = keys[i];
          keys[i] = keys[j];
          keys[j] = t;
        }
        java.util.Map<Long, Integer> rowOf = new java.util.HashMap<>();
        for (int i = 0; i < buildSize; i++) {
          rowOf.put(keys[i], i);
        }
        try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
            new boolean[] {false}, "unique"); BigIntVector b = longs(allocator, keys)) {
          t.addBatch(List.of(b), buildSize);
          t.finish();
          assertTrue(t.uniqueKeys(), "distinct build keys");
          // Half the probe rows match, or one in 20 (a selective join: the pairs loop skips the misses).
          for (int probeSize : new int[] {0, 1, 63, 64, 65, 2000, -2000}) {
            boolean selective = probeSize < 0;
            probeSize = Math.abs(probeSize);
            try (BigIntVector p = new BigIntVector("k", allocator)) {
              p.allocateNew(Math.max(probeSize, 1));
              List<String> want = new ArrayList<>();
              for (int r = 0; r < probeSize; r++) {
                int kind = rnd.nextInt(selective ? 20 : 4);
                if (kind == 0) {
                  p.setNull(r);
                  continue;
                }
                boolean hit = selective ? kind == 2 : kind >= 2;
                long k = hit ? keys[rnd.nextInt(buildSize)] : rnd.nextLong();
                p.set(r, k);
                Integer row = rowOf.get(k);
                if (row != null) {
                  want.add(r + ":" + row);
                }
              }
              p.setValueCount(probeSize);
              for (int limit : new int[] {1, 2, 7, 64, 4096}) {
                JoinProbe probe = t.newProbe();
                probe.lookup(List.of(p), probeSize);
                int[] pr = new int[limit];
                int[] br = new int[limit];
                List<String> got = new ArrayList<>();
                int n;
                while ((n = probe.nextPairs(pr, br, limit)) > 0) {
                  assertTrue(n <= limit, n + " pairs over the limit " + limit);
                  for (int k = 0; k < n; k++) {
                    got.add(pr[k] + ":" + br[k]);
                  }
                }
                assertEquals(0, probe.nextPairs(pr, br, limit));
                String what = buildSize + " build rows (dense " + dense + "), " + probeSize + " probe rows"
                    + (selective ? " (selective)" : "") + ", limit " + limit;
                assertEquals(want, got, what);
                int matches = 0;
                for (int r = 0; r < probeSize; r++) {
                  assertEquals(probe.hasMatch(r) ? 1 : 0, probe.matchCount(r), what);
                  matches += probe.matchCount(r);
                }
                assertEquals(want.size(), matches, what);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void pairLimitSplitsThePairsWithoutLosingOrReorderingAny() {
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
        new boolean[] {false}, "n"); BigIntVector b = longs(allocator, 1, 2, 1, 1, 3, 2);
        BigIntVector p = longs(allocator, 1, 5, 2, 1, 3)) {
      t.addBatch(List.of(b), 6);
      t.finish();
      List<String> all = new ArrayList<>();
      List<String> limited = new ArrayList<>();
      for (int limit : new int[] {16, 3}) {
        JoinProbe probe = t.newProbe();
        probe.lookup(List.of(p), 5);
        int[] pr = new int[16];
        int[] br = new int[16];
        int n;
        while ((n = probe.nextPairs(pr, br, limit)) > 0) {
          assertTrue(n <= limit, n + " pairs over the limit " + limit);
          for (int k = 0; k < n; k++) {
            (limit == 16 ? all : limited).add(pr[k] + ":" + br[k]);
          }
        }
      }
      assertEquals(9, all.size(), all.toString()); // probe rows 1, 2, 1, 3 match 3, 2, 3, 1 build rows; 5 none
      assertEquals(all, limited);
      JoinProbe probe = t.newProbe();
      probe.lookup(List.of(p), 5);
      assertThrows(IllegalArgumentException.class, () -> probe.nextPairs(new int[4], new int[4], 0));
      assertThrows(IllegalArgumentException.class, () -> probe.nextPairs(new int[4], new int[4], 5));
    }
  }

  /** Both integral lookups read the probe batch's rows, not its buffer's first rows, when a vector is a slice. */
  @Test
  void slicedIntegralProbeColumn() {
    for (long third : new long[] {12, 1L << 40}) {
      try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
          new boolean[] {false}, "s"); BigIntVector b = longs(allocator, 10, 11, third);
          BigIntVector whole = longs(allocator, 1, 2, third, 10, 3)) {
        t.addBatch(List.of(b), 3);
        t.finish();
        assertEquals(third == 12, t.dense() != null);
        org.apache.arrow.vector.util.TransferPair tp = whole.getTransferPair(allocator);
        tp.splitAndTransfer(2, 3);
        try (BigIntVector slice = (BigIntVector) tp.getTo()) {
          JoinProbe probe = t.newProbe();
          probe.lookup(List.of(slice), 3);
          int[] pr = new int[4];
          int[] br = new int[4];
          assertEquals(2, probe.nextPairs(pr, br));
          assertEquals(List.of(0, 1), List.of(pr[0], pr[1]));
          assertEquals(List.of(2, 0), List.of(br[0], br[1]));
          assertFalse(probe.hasMatch(2));
        }
      }
    }
  }

  /**
   * The dense index against a boxed reference, at the edges of the long and int ranges (where value - min
   * would wrap), with nulls on both sides, duplicate build keys, and ranges just inside and outside its limit.
   */
  @Test
  void denseIndexAtTheEdgesOfTheValueRange() {
    long[][] buildSets = {
        {Long.MAX_VALUE, Long.MAX_VALUE - 3, Long.MAX_VALUE - 1, Long.MAX_VALUE},
        {Long.MIN_VALUE, Long.MIN_VALUE + 2, Long.MIN_VALUE + 1},
        {-2, -1, 0, 1, 5, 5, 7},
        {0, 1, 2, 3, 4, 5, 6, 100}, // span 100 > 4 x 8 keys, but below SMALL_RANGE: dense
        {0, 1, 2, 3, 4, 5, 6, DenseKeyIndex.SMALL_RANGE - 1}, // the widest small range: dense
        {0, 1, 2, 3, 4, 5, 6, DenseKeyIndex.SMALL_RANGE}, // too wide for 8 keys: hashed
    };
    boolean[] dense = {true, true, true, true, true, false};
    long[] probeValues = {Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MIN_VALUE + 2, -2, -1, 0, 1, 3, 5, 6, 7, 8, 100,
        Long.MAX_VALUE - 3, Long.MAX_VALUE - 2, Long.MAX_VALUE - 1, Long.MAX_VALUE, Integer.MAX_VALUE,
        DenseKeyIndex.SMALL_RANGE - 1, DenseKeyIndex.SMALL_RANGE, DenseKeyIndex.SMALL_RANGE + 1, 99, 101};
    for (int set = 0; set < buildSets.length; set++) {
      long[] buildValues = buildSets[set];
      try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
          new boolean[] {false}, "d"); BigIntVector b = longs(allocator, buildValues); BigIntVector p = longs(allocator, probeValues)) {
        b.setNull(1); // a null build key never matches
        p.setNull(0);
        t.addBatch(List.of(b), buildValues.length);
        t.finish();
        assertEquals(dense[set], t.dense() != null, Arrays.toString(buildValues));
        JoinProbe probe = t.newProbe();
        probe.lookup(List.of(p), probeValues.length);
        for (int i = 0; i < probeValues.length; i++) {
          int want = 0;
          for (int r = 0; r < buildValues.length; r++) {
            want += i != 0 && r != 1 && buildValues[r] == probeValues[i] ? 1 : 0;
          }
          assertEquals(want, probe.matchCount(i), Arrays.toString(buildValues) + " probe " + probeValues[i]);
        }
      }
    }
    // Int keys at the int edges (sign-extended, never wrapped).
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.leaf("i", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true))),
        new boolean[] {false}, new boolean[] {false}, "i"); IntVector b = ints(allocator, Integer.MIN_VALUE, Integer.MIN_VALUE + 1);
        IntVector p = ints(allocator, Integer.MAX_VALUE, Integer.MIN_VALUE, 0, Integer.MIN_VALUE + 1)) {
      t.addBatch(List.of(b), 2);
      t.finish();
      assertTrue(t.dense() != null);
      JoinProbe probe = t.newProbe();
      probe.lookup(List.of(p), 4);
      assertEquals(List.of(false, true, false, true),
          List.of(probe.hasMatch(0), probe.hasMatch(1), probe.hasMatch(2), probe.hasMatch(3)));
    }
  }

  /**
   * A small build side is spread to load 1/8 for probing (1,300 keys: 16,384 slots where load 1/2 gave
   * 4,096), a large one keeps its slots (past 32,768 slots spreading stops), and the answers of a selective
   * probe (mostly absent keys, sparse build keys: the hashed path) match a set reference either way.
   */
  @Test
  void smallBuildSidesAreSpreadForProbingWithTheSameAnswers() {
    java.util.Random rnd = new java.util.Random(5);
    for (int keys : new int[] {3, 1300, 20_000}) {
      java.util.LinkedHashSet<Long> set = new java.util.LinkedHashSet<>();
      while (set.size() < keys) {
        set.add((long) rnd.nextInt(10_000_000));
      }
      long[] buildValues = set.stream().mapToLong(Long::longValue).toArray();
      long[] probeValues = new long[50_000];
      for (int i = 0; i < probeValues.length; i++) {
        probeValues[i] = i % 10 == 0 ? buildValues[rnd.nextInt(keys)] : rnd.nextInt(10_000_000);
      }
      try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
          new boolean[] {false}, "spread"); BigIntVector b = longs(allocator, buildValues); BigIntVector p = longs(allocator, probeValues)) {
        t.addBatch(List.of(b), keys);
        int before = t.slotCapacity();
        t.finish();
        assertTrue(t.dense() == null, "sparse keys take the hashed path");
        int expected = keys == 3 ? 64 : keys == 1300 ? 16_384 : 65_536;
        assertEquals(expected, t.slotCapacity(), keys + " keys (" + before + " slots before finish)");
        JoinProbe probe = t.newProbe();
        probe.lookup(List.of(p), probeValues.length);
        for (int i = 0; i < probeValues.length; i++) {
          assertEquals(set.contains(probeValues[i]), probe.hasMatch(i), keys + " keys, probe " + probeValues[i]);
        }
      }
    }
  }

  @Test
  void withoutMemoryToSpreadATableKeepsItsSlots() {
    try (org.apache.arrow.memory.BufferAllocator small = allocator.newChildAllocator("small", 0, 4096);
        HashSlots slots = new HashSlots(small, 100)) {
      assertEquals(256, slots.capacity()); // 2 KB of the 4 KB allowed
      slots.spreadForProbing(100); // would take 1,024 slots (8 KB)
      assertEquals(256, slots.capacity());
    }
  }

  @Test
  void hugeMatchCountsStreamInBoundedChunks() {
    int n = 200_000;
    long[] same = new long[n];
    Arrays.fill(same, 5);
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {false},
        new boolean[] {false}, "big"); BigIntVector b = longs(allocator, same); BigIntVector p = longs(allocator, 5, 6, 5)) {
      t.addBatch(List.of(b), n);
      t.finish();
      assertEquals(1, t.distinctKeyCount());
      JoinProbe probe = t.newProbe();
      probe.lookup(List.of(p), 3);
      assertEquals(n, probe.matchCount(0));
      assertFalse(probe.hasMatch(1));
      int[] pr = new int[4096];
      int[] br = new int[4096];
      long total = 0;
      int expectRow = 0;
      int expectBuild = 0;
      int c;
      while ((c = probe.nextPairs(pr, br)) > 0) {
        for (int k = 0; k < c; k++) {
          assertEquals(expectRow, pr[k]);
          assertEquals(expectBuild, br[k]);
          expectBuild++;
          if (expectBuild == n) {
            expectBuild = 0;
            expectRow = 2;
          }
        }
        total += c;
      }
      assertEquals(2L * n, total);
      assertEquals(0, t.unmatchedBuildRows(0, pr));
    }
  }

  @Test
  void misuseAndBadInput() {
    try (JoinTable t = new JoinTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {true},
        new boolean[] {true}, "m"); BigIntVector b = longs(allocator, 1, 2); IntVector wrong = new IntVector("w", allocator)) {
      wrong.allocateNew(1);
      wrong.setValueCount(1);
      assertThrows(IllegalStateException.class, t::newProbe);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> t.addBatch(List.of(wrong), 1));
      assertTrue(e.getMessage().contains("key column 0"), e.getMessage());
      t.addBatch(List.of(b), 2);
      t.finish();
      assertThrows(IllegalStateException.class, () -> t.addBatch(List.of(b), 2));
      JoinProbe p = t.newProbe();
      assertThrows(IllegalArgumentException.class, () -> p.lookup(List.of(wrong), 1));
      assertThrows(IllegalArgumentException.class, () -> p.lookup(List.of(b, b), 1));
      p.lookup(List.of(b), 2);
      assertThrows(IndexOutOfBoundsException.class, () -> p.hasMatch(2));
      assertTrue(p.hasMatch(1));
    }
  }

  @Test
  void memoryLimitGivesAClearErrorAndClosesCleanly() {
    try (BufferAllocator limited = allocator.newChildAllocator("join-task", 0, 200_000)) {
      JoinTable t = new JoinTable(limited, List.of(SupportedTypes.bigint("k")), new boolean[] {true},
          new boolean[] {true}, "build-side");
      TableMemoryException e = null;
      long next = 0;
      try {
        for (int batch = 0; batch < 1000; batch++) {
          long[] vals = new long[4096];
          for (int i = 0; i < vals.length; i++) {
            vals[i] = next++;
          }
          try (BigIntVector v = longs(allocator, vals)) {
            t.addBatch(List.of(v), vals.length);
          }
        }
      } catch (TableMemoryException ex) {
        e = ex;
      }
      assertTrue(e != null, "the limit was never reached");
      String m = e.getMessage();
      assertTrue(m.contains("JoinTable 'build-side'") && m.contains("200000") && m.contains("build rows"), m);
      assertThrows(IllegalStateException.class, t::finish);
      t.close();
      assertEquals(0, limited.getAllocatedMemory());
    }
  }
}
