package io.rowmatch.core.table;

import static io.rowmatch.core.testing.TestVectors.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongUnaryOperator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.core.testing.RandomVectors;
import io.rowmatch.core.testing.ReferenceRowEquality;
import io.rowmatch.core.testing.SupportedTypes;

class GroupTableTest extends AllocatorTest {
  private static final int[] SIZES = {0, 1, 63, 64, 65, 200, 1000};

  /** The reference: a HashMap from boxed keys to ids, in order of first appearance. */
  private static final class Reference {
    final Map<List<Object>, Integer> ids = new HashMap<>();
    int next;

    int[] intern(List<FieldVector> batch, int rows, boolean[] nullsEqual, boolean[] nansEqual, List<Integer> firsts) {
      int[] out = new int[rows];
      for (int r = 0; r < rows; r++) {
        List<Object> key = ReferenceRowEquality.key(batch, r, nullsEqual, nansEqual);
        Integer id = ids.get(key);
        if (id == null) {
          id = next++;
          firsts.add(r);
          if (ReferenceRowEquality.rowsEqual(batch, r, batch, r, nullsEqual, nansEqual)) { // else it finds no row
            ids.put(key, id);
          }
        }
        out[r] = id;
      }
      return out;
    }
  }

  private void differential(List<Field> fields, boolean nullsEq, boolean nansEq, long seed, int domain,
      LongUnaryOperator hash) {
    differential(fields, nullsEq, nansEq, seed, domain, hash, new double[] {0.15});
  }

  /** As above, batch k's keys null with chance nullChances[k % length] (0: batches without a null key). */
  private GroupTable differential(List<Field> fields, boolean nullsEq, boolean nansEq, long seed, int domain,
      LongUnaryOperator hash, double[] nullChances) {
    boolean[] nullsEqual = new boolean[fields.size()];
    boolean[] nansEqual = new boolean[fields.size()];
    Arrays.fill(nullsEqual, nullsEq);
    Arrays.fill(nansEqual, nansEq);
    Random rnd = new Random(seed);
    RandomVectors[] gens = new RandomVectors[nullChances.length];
    for (int k = 0; k < gens.length; k++) {
      gens[k] = new RandomVectors(rnd, nullChances[k], domain);
    }
    Reference ref = new Reference();
    // Every key stored, as canonical boxed values under "everything equal", to check the key columns.
    List<List<Object>> expectedStored = new ArrayList<>();
    boolean[] all = new boolean[fields.size()];
    Arrays.fill(all, true);
    try (GroupTable table = new GroupTable(allocator, fields, nullsEqual, nansEqual, "t", hash)) {
      for (int b = 0; b < SIZES.length; b++) {
        int size = SIZES[b];
        RandomVectors gen = gens[b % gens.length];
        List<FieldVector> batch = new ArrayList<>();
        try {
          for (Field f : fields) {
            batch.add(gen.create(f, size + 3, allocator)); // vectors longer than rowCount: only rowCount rows count
          }
          List<Integer> firsts = new ArrayList<>();
          int[] want = ref.intern(batch, size, nullsEqual, nansEqual, firsts);
          int[] got = new int[size];
          int[] newFirst = new int[size];
          int added = table.intern(batch, size, got, newFirst);
          String what = fields + " nullsEqual=" + nullsEq + " nansEqual=" + nansEq + " seed=" + seed + " size=" + size;
          assertArrayEquals(want, got, what);
          assertEquals(firsts.size(), added, what);
          assertArrayEquals(firsts.stream().mapToInt(Integer::intValue).toArray(), Arrays.copyOf(newFirst, added), what);
          for (int k = 0; k < added; k++) {
            expectedStored.add(ReferenceRowEquality.key(batch, newFirst[k], all, all));
          }
          assertEquals(ref.next, table.groupCount(), what);
          for (int g = 0; g < table.groupCount(); g++) {
            assertEquals(expectedStored.get(g), ReferenceRowEquality.key(table.keyColumns(), g, all, all), what + " group " + g);
          }
        } finally {
          batch.forEach(FieldVector::close);
        }
      }
      assertTrue(table.allocatedBytes() > 0);
      return table;
    }
  }

  @Test
  void everyTypeUnderEveryFlagCombination() {
    long seed = 1;
    for (Field f : SupportedTypes.all()) {
      for (boolean nullsEq : new boolean[] {true, false}) {
        for (boolean nansEq : new boolean[] {true, false}) {
          differential(List.of(f), nullsEq, nansEq, seed++, 6, null);
          differential(List.of(f), nullsEq, nansEq, seed++, 40, null);
        }
      }
    }
  }

  /**
   * One 4- or 8-byte integral key column: batches without a null key intern through FixedKeyLookup, the others
   * through the general path, interleaved in one table (a null group made by one path must never be found by
   * the other for a value that happens to lie under the null). Every such type, both null rules, the real hash
   * and forced collisions (every row and the null in one probe chain, or four chains), small and large domains.
   */
  @Test
  void singleIntegralKeyBatchesWithoutNullsTakeTheFusedPath() {
    long seed = 5000;
    int covered = 0;
    for (Field f : IntegralKeyTypes.all(allocator)) {
      covered++;
      for (boolean nullsEq : new boolean[] {true, false}) {
        for (LongUnaryOperator hash : new LongUnaryOperator[] {null, h -> 0L, h -> h & 3}) {
          for (int domain : new int[] {3, 50, 5000}) {
            GroupTable used = differential(List.of(f), nullsEq, false, seed++, domain, hash, new double[] {0, 0.3});
            assertTrue(used.fixedInternBatches() >= 3, f + ": batches of the fused path " + used.fixedInternBatches());
          }
        }
      }
    }
    assertTrue(covered >= 4, "bigint, int, date and timestamp at least; got " + covered);
  }

  /**
   * One integral key whose values span a small range interns by value (DenseGroups): ids as the reference's while
   * the range grows up and down (doubling), and after a batch whose values break the range rules (too wide, too
   * sparse, spanning past Long.MAX_VALUE - Long.MIN_VALUE, or holding a null) moves the table to its hash index
   * for good; the stored keys and a join table's lookups over them agree. Sizes 0, 1, 63, 64, 65 and larger.
   */
  @Test
  void smallRangeKeysInternByValueUntilARangeRuleOrANullSendsThemToTheHashIndex() {
    long[] sparse = new long[75_000]; // two values 65,537 apart, as many rows as the range then has values
    for (int i = 0; i < sparse.length; i++) {
      sparse[i] = i % 2 == 0 ? 5 : 5 + DenseGroups.SMALL_RANGE + 1;
    }
    long[][] breakers = {
      {0, DenseGroups.MAX_RANGE}, // one value past the widest range: refused
      sparse, // interned by value, then too sparse: the table moves after it
      {Long.MIN_VALUE, Long.MAX_VALUE}, // a span that overflows: refused
    };
    Random rnd = new Random(77);
    for (long[] breaker : breakers) {
      for (boolean nullBreaks : new boolean[] {false, true}) {
        boolean[] all = {true};
        Reference ref = new Reference();
        try (GroupTable table = new GroupTable(allocator, List.of(Field.nullable("k", new ArrowType.Int(64, true))),
            all, all.clone(), "dense")) {
          List<long[]> batches = new ArrayList<>();
          for (int size : new int[] {0, 1, 63, 64, 65, 300}) {
            batches.add(rnd.longs(size, 1000, 1300).toArray()); // a few hundred values
          }
          batches.add(rnd.longs(500, 1000, 9000).toArray()); // the range grows up
          batches.add(rnd.longs(500, -7000, 1000).toArray()); // and down
          boolean brokenSeen = false;
          int refused = batches.size();
          batches.add(breaker);
          batches.add(rnd.longs(400, -7000, 9000).toArray()); // after: the hash index, the same groups found
          for (int b = 0; b < batches.size(); b++) {
            long[] values = batches.get(b);
            boolean withNull = nullBreaks && b == refused && values.length > 0;
            try (BigIntVector v = longs(allocator, values)) {
              if (withNull) {
                v.setNull(0);
              }
              List<Integer> firsts = new ArrayList<>();
              int[] want = ref.intern(List.of(v), values.length, all, all, firsts);
              int[] got = new int[values.length];
              int[] newFirst = new int[values.length];
              int added = table.intern(List.of(v), values.length, got, newFirst);
              String what = "batch " + b + " breaker " + breaker.length + " values from " + breaker[0] + " null " + nullBreaks;
              assertArrayEquals(want, got, what);
              assertEquals(firsts.size(), added, what);
              assertEquals(b < refused, table.denseIndexed(), what);
              brokenSeen |= b == refused;
            }
          }
          assertTrue(brokenSeen);
          assertEquals(ref.next, table.groupCount());
          // every stored key is found again through the hash index the dense one became
          List<FieldVector> stored = table.keyColumns();
          int[] again = new int[table.groupCount()];
          table.spreadForProbing();
          table.lookup(stored, table.groupCount(), again, new ProbeScratch());
          for (int g = 0; g < again.length; g++) {
            if (!stored.get(0).isNull(g)) {
              assertEquals(g, again[g], "group " + g);
            }
          }
        }
      }
    }
  }

  /**
   * Two or three 4- or 8-byte integral key columns intern through FixedKeyColumns: batches without nulls, and
   * with nulls where nulls never match (their rows get groups of their own); where nulls are equal a null sends the
   * batch, and every later one, to the general path. Random pairs and triples of those types, both null rules, the
   * real hash and forced collisions, small and large domains, against the reference.
   */
  @Test
  void integralKeyColumnsTakeTheFusedPath() {
    List<Field> fixed = IntegralKeyTypes.all(allocator);
    Random pick = new Random(17);
    long seed = 6000;
    for (int trial = 0; trial < 12; trial++) {
      List<Field> fields = new ArrayList<>();
      for (int c = 0; c < 2 + trial % 2; c++) {
        Field f = fixed.get(pick.nextInt(fixed.size()));
        fields.add(new Field("k" + c, f.getFieldType(), f.getChildren()));
      }
      for (boolean nullsEq : new boolean[] {true, false}) {
        for (LongUnaryOperator hash : new LongUnaryOperator[] {null, h -> 0L, h -> h & 3}) {
          for (int domain : new int[] {3, 40}) {
            GroupTable used = differential(fields, nullsEq, false, seed++, domain, hash, new double[] {0, 0, 0, 0.2});
            // Nulls never equal: batches 1 to 6 (the empty batch 0 does no work); nulls equal: batches 1 and 2 at
            // least, before the first null.
            int want = nullsEq ? 2 : 6;
            assertTrue(used.fixedInternBatches() >= want, fields + " nullsEqual=" + nullsEq + ": "
                + used.fixedInternBatches() + " batches of the fused path");
          }
        }
      }
    }
  }

  /** A value equal to the bits under a stored null key is its own group, found again by either path. */
  @Test
  void valueUnderAStoredNullIsNotTheNullGroup() {
    for (LongUnaryOperator hash : new LongUnaryOperator[] {null, h -> 0L}) {
      try (GroupTable t = new GroupTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {true},
          new boolean[] {true}, "z", hash); BigIntVector withNull = longs(allocator, 7, 0);
          BigIntVector zeros = longs(allocator, 0, 0, 7)) {
        withNull.setNull(1); // the bits under it stay 0
        int[] ids = new int[3];
        int[] first = new int[3];
        assertEquals(2, t.intern(List.of(withNull), 2, ids, first));
        assertEquals(List.of(0, 1), List.of(ids[0], ids[1]));
        assertEquals(1, t.intern(List.of(zeros), 3, ids, first)); // no null: the fused path
        assertEquals(List.of(2, 2, 0), List.of(ids[0], ids[1], ids[2]));
        assertEquals(1, t.fixedInternBatches());
        assertEquals(0, t.intern(List.of(withNull), 2, ids, first)); // a null: the general path finds both
        assertEquals(List.of(0, 1), List.of(ids[0], ids[1]));
        assertEquals(3, t.groupCount());
      }
    }
  }

  @Test
  void multiColumnKeys() {
    Random pick = new Random(7);
    for (int trial = 0; trial < 40; trial++) {
      List<Field> fields = SupportedTypes.pick(pick, 2 + pick.nextInt(3));
      differential(fields, pick.nextBoolean(), pick.nextBoolean(), 1000 + trial, 3 + pick.nextInt(5), null);
    }
  }

  @Test
  void forcedCollisions() {
    List<Field> fields = List.of(SupportedTypes.bigint("a"), SupportedTypes.utf8("b"));
    for (boolean nullsEq : new boolean[] {true, false}) {
      differential(fields, nullsEq, true, 11, 8, h -> 0L);
      differential(fields, nullsEq, true, 12, 30, h -> h & 3);
      differential(List.of(SupportedTypes.named("struct"), SupportedTypes.named("list_double")), nullsEq, false, 13, 5, h -> h & 1);
    }
  }

  @Test
  void zeroKeyColumnsMakeOneGroup() {
    try (GroupTable t = new GroupTable(allocator, List.of(), new boolean[0], new boolean[0], "none")) {
      int[] ids = new int[5];
      int[] first = new int[5];
      assertEquals(1, t.intern(List.of(), 5, ids, first));
      assertArrayEquals(new int[5], ids);
      assertEquals(0, first[0]);
      assertEquals(0, t.intern(List.of(), 3, ids, first));
      assertEquals(1, t.groupCount());
    }
  }

  @Test
  void oneGiantGroupAndAllDistinct() {
    int n = 100_000;
    long[] same = new long[n];
    Arrays.fill(same, 42);
    long[] distinct = new long[n];
    for (int i = 0; i < n; i++) {
      distinct[i] = i * 7919L;
    }
    try (GroupTable t = new GroupTable(allocator, List.of(SupportedTypes.bigint("k")), new boolean[] {true},
        new boolean[] {true}, "g"); BigIntVector a = longs(allocator, same); BigIntVector b = longs(allocator, distinct)) {
      int[] ids = new int[n];
      int[] first = new int[n];
      assertEquals(1, t.intern(List.of(a), n, ids, first));
      assertTrue(Arrays.stream(ids).allMatch(x -> x == 0));
      assertEquals(n, t.intern(List.of(b), n, ids, first)); // 42 is no multiple of 7919
      assertEquals(n + 1, t.groupCount());
      for (int i = 0; i < n; i++) {
        assertEquals(i + 1, ids[i], "row " + i);
      }
      // Again: all found, nothing added, ids stable.
      assertEquals(0, t.intern(List.of(b), n, ids, first));
      for (int i = 0; i < n; i++) {
        assertEquals(i + 1, ids[i]);
      }
      BigIntVector stored = (BigIntVector) t.keyColumns().get(0);
      assertEquals(n + 1, stored.getValueCount());
      assertEquals(42, stored.get(0));
      assertEquals(7919L * 5, stored.get(6));
    }
  }

  @Test
  void allNullKeysAndNullVectorBatches() {
    Field f = SupportedTypes.leaf("k", new ArrowType.Int(32, true));
    for (boolean nullsEq : new boolean[] {true, false}) {
      try (GroupTable t = new GroupTable(allocator, List.of(f), new boolean[] {nullsEq}, new boolean[] {true}, "n");
          IntVector nulls = new IntVector("x", allocator); NullVector nv = new NullVector("y", 4)) {
        nulls.allocateNew(4);
        nulls.setValueCount(4);
        int[] ids = new int[4];
        int[] first = new int[4];
        int added = t.intern(List.of(nulls), 4, ids, first);
        if (nullsEq) {
          assertEquals(1, added);
          assertArrayEquals(new int[4], ids);
          assertEquals(0, t.intern(List.of(nv), 4, ids, first)); // a NullVector's rows are the same null
          assertArrayEquals(new int[4], ids);
        } else {
          assertEquals(4, added);
          assertArrayEquals(new int[] {0, 1, 2, 3}, ids);
          assertEquals(4, t.intern(List.of(nv), 4, ids, first));
          assertArrayEquals(new int[] {4, 5, 6, 7}, ids);
        }
        IntVector stored = (IntVector) t.keyColumns().get(0);
        assertEquals(t.groupCount(), stored.getValueCount());
        for (int g = 0; g < t.groupCount(); g++) {
          assertTrue(stored.isNull(g));
        }
      }
    }
  }

  @Test
  void badInputNamesTheColumn() {
    List<Field> fields = List.of(SupportedTypes.bigint("a"), SupportedTypes.utf8("b"));
    try (GroupTable t = new GroupTable(allocator, fields, new boolean[] {true, true}, new boolean[] {true, true}, "bad");
        BigIntVector a = longs(allocator, 1, 2); IntVector wrong = new IntVector("w", allocator);
        VarCharVector s = new VarCharVector("s", allocator)) {
      wrong.allocateNew(2);
      wrong.setValueCount(2);
      s.allocateNew();
      s.setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
      s.setValueCount(1);
      int[] ids = new int[2];
      IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class,
          () -> t.intern(List.of(a), 2, ids, ids.clone()));
      assertTrue(e1.getMessage().contains("expected 2 key columns, got 1"), e1.getMessage());
      IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
          () -> t.intern(List.of(a, wrong), 2, ids, ids.clone()));
      assertTrue(e2.getMessage().contains("key column 1"), e2.getMessage());
      IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class,
          () -> t.intern(List.of(a, s), 2, ids, ids.clone()));
      assertTrue(e3.getMessage().contains("key column 1") && e3.getMessage().contains("fewer than rowCount 2"),
          e3.getMessage());
      IllegalArgumentException e4 = assertThrows(IllegalArgumentException.class,
          () -> t.intern(List.of(a, s), 1, ids, ids.clone()));
      assertTrue(e4.getMessage().contains("key column 1 holds 1 rows but key column 0 holds 2"), e4.getMessage());
      s.setSafe(1, "y".getBytes(StandardCharsets.UTF_8));
      s.setValueCount(2);
      assertThrows(IllegalArgumentException.class, () -> t.intern(List.of(a, s), 2, new int[1], new int[2]));
      // Still usable after rejected input.
      assertEquals(2, t.intern(List.of(a, s), 2, ids, ids.clone()));
      assertArrayEquals(new int[] {0, 1}, ids);
    }
    assertThrows(IllegalArgumentException.class,
        () -> new GroupTable(allocator, fields, new boolean[1], new boolean[2], "flags"));
  }

  @Test
  void memoryLimitGivesAClearErrorAndClosesCleanly() {
    try (BufferAllocator limited = allocator.newChildAllocator("task-7", 0, 256 * 1024)) {
      GroupTable t = new GroupTable(limited, List.of(SupportedTypes.bigint("k")), new boolean[] {true},
          new boolean[] {true}, "agg-table");
      int n = 4096;
      int[] ids = new int[n];
      int[] first = new int[n];
      TableMemoryException e = null;
      long next = 0;
      try {
        for (int batch = 0; batch < 1000; batch++) {
          long[] vals = new long[n];
          for (int i = 0; i < n; i++) {
            vals[i] = next++;
          }
          try (BigIntVector v = longs(allocator, vals)) {
            t.intern(List.of(v), n, ids, first);
          }
        }
      } catch (TableMemoryException ex) {
        e = ex;
      }
      assertTrue(e != null, "the limit was never reached");
      assertTrue(e instanceof OutOfMemoryException);
      String m = e.getMessage();
      assertTrue(m.contains("agg-table") && m.contains("262144") && m.contains("task-7")
          && m.contains(t.groupCount() + " groups"), m);
      assertThrows(IllegalStateException.class, () -> t.intern(List.of(), 0, ids, first));
      t.close();
      assertEquals(0, limited.getAllocatedMemory());
    }
  }
}
