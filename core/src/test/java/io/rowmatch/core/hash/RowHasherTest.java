package io.rowmatch.core.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.MalformedVectorException;
import io.rowmatch.core.MultiColumnComparator;
import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.core.testing.RandomVectors;
import io.rowmatch.core.testing.SupportedTypes;

class RowHasherTest extends AllocatorTest {
  /** Every pair the comparator calls equal hashes equal, across two independently built batches. */
  private void agreement(List<Field> fields, boolean nansEq, long seed) {
    boolean[] nansEqual = new boolean[fields.size()];
    Arrays.fill(nansEqual, nansEq);
    boolean[] nullsEqual = new boolean[fields.size()];
    Arrays.fill(nullsEqual, true);
    RandomVectors gen = new RandomVectors(new Random(seed), 0.2, 5);
    List<FieldVector> left = new ArrayList<>();
    List<FieldVector> right = new ArrayList<>();
    try {
      for (Field f : fields) {
        left.add(gen.create(f, 150, allocator));
        right.add(gen.create(f, 130, allocator));
      }
      RowHasher hasher = new RowHasher(nansEqual);
      long[] lh = new long[150];
      long[] rh = new long[130];
      hasher.hash(left, 150, lh);
      hasher.hash(right, 130, rh);
      long[] again = new long[150];
      hasher.hash(left, 150, again);
      assertTrue(Arrays.equals(lh, again), "deterministic");
      int equalPairs = 0;
      try (MultiColumnComparator cmp = MultiColumnComparator.build(left, right, nullsEqual, nansEqual)) {
        for (int l = 0; l < 150; l++) {
          for (int r = 0; r < 130; r++) {
            if (cmp.equal(l, r)) {
              equalPairs++;
              assertEquals(lh[l], rh[r], fields + " nansEqual=" + nansEq + " rows " + l + ", " + r);
            }
          }
        }
      }
      assertTrue(equalPairs > 0, "the test must exercise equal pairs: " + fields);
    } finally {
      left.forEach(FieldVector::close);
      right.forEach(FieldVector::close);
    }
  }

  @Test
  void equalRowsHashEqualForEveryType() {
    long seed = 100;
    for (Field f : SupportedTypes.all()) {
      agreement(List.of(f), true, seed++);
      agreement(List.of(f), false, seed++);
    }
    agreement(List.of(SupportedTypes.named("int64"), SupportedTypes.named("utf8")), true, 1);
    agreement(List.of(SupportedTypes.named("struct"), SupportedTypes.named("double"), SupportedTypes.named("map")), true,
        2);
  }

  @Test
  void signedZerosNaNPayloadsAndNullsHashAlike() {
    try (Float8Vector d = new Float8Vector("d", allocator); Float4Vector f = new Float4Vector("f", allocator);
        Float2Vector h = new Float2Vector("h", allocator); IntVector nulls = new IntVector("n", allocator);
        NullVector nv = new NullVector("nv", 2)) {
      d.allocateNew(4);
      d.set(0, 0.0);
      d.set(1, -0.0);
      d.set(2, Double.NaN);
      d.set(3, Double.longBitsToDouble(0xfff0000000000123L));
      d.setValueCount(4);
      f.allocateNew(4);
      f.set(0, 0.0f);
      f.set(1, -0.0f);
      f.set(2, Float.NaN);
      f.set(3, Float.intBitsToFloat(0xff800123));
      f.setValueCount(4);
      h.allocateNew(4);
      h.set(0, (short) 0);
      h.set(1, (short) 0x8000);
      h.set(2, (short) 0x7e00);
      h.set(3, (short) 0xfc01);
      h.setValueCount(4);
      long[] out = new long[4];
      for (FieldVector v : List.of(d, f, h)) {
        new RowHasher(new boolean[] {true}).hash(List.of(v), 4, out);
        assertEquals(out[0], out[1], v.getName() + ": -0.0 and 0.0");
        assertEquals(out[2], out[3], v.getName() + ": NaN payloads");
        assertNotEquals(out[0], out[2]);
      }
      nulls.allocateNew(2);
      nulls.setValueCount(2);
      long[] a = new long[2];
      long[] b = new long[2];
      new RowHasher(new boolean[] {true}).hash(List.of(nulls), 2, a);
      new RowHasher(new boolean[] {true}).hash(List.of(nv), 2, b);
      assertEquals(a[0], a[1]);
      assertEquals(a[0], b[0]);
      assertEquals(HashMixer.NULL_HASH, a[0]);
    }
  }

  @Test
  void columnOrderMatters() {
    try (BigIntVector a = new BigIntVector("a", allocator); BigIntVector b = new BigIntVector("b", allocator)) {
      a.allocateNew(1);
      a.set(0, 1);
      a.setValueCount(1);
      b.allocateNew(1);
      b.set(0, 2);
      b.setValueCount(1);
      long[] ab = new long[1];
      long[] ba = new long[1];
      RowHasher two = new RowHasher(new boolean[2]);
      two.hash(List.of(a, b), 1, ab);
      two.hash(List.of(b, a), 1, ba);
      assertNotEquals(ab[0], ba[0]);
    }
  }

  @Test
  void malformedOffsetsAndWrongCountsAreRejected() {
    try (VarCharVector s = new VarCharVector("s", allocator)) {
      s.allocateNew();
      s.setSafe(0, "abc".getBytes(StandardCharsets.UTF_8));
      s.setSafe(1, "de".getBytes(StandardCharsets.UTF_8));
      s.setValueCount(2);
      s.getOffsetBuffer().setInt(8, 1 << 20); // row 1 ends far past the data
      RowHasher hasher = new RowHasher(new boolean[1]);
      MalformedVectorException e = assertThrows(MalformedVectorException.class,
          () -> hasher.hash(List.of(s), 2, new long[2]));
      assertTrue(e.getMessage().contains("column 0") && e.getMessage().contains("row 1"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> hasher.hash(List.of(s, s), 2, new long[2]));
      assertThrows(IllegalArgumentException.class, () -> hasher.hash(List.of(s), 3, new long[3]));
    }
  }

  /**
   * Spread: for n keys in m buckets the expected number of colliding keys (n minus occupied buckets) is
   * n - m(1 - e^(-n/m)). Sequential integers and short strings must stay near it, in the bits that place
   * a key (low bits of the table tag) and in the full 64 bits (expected ~0).
   */
  @Test
  void sequentialIntsAndShortStringsSpreadLikeRandom() {
    int n = 1 << 20;
    long[] ints = new long[n];
    long[] strings = new long[n];
    try (BigIntVector v = new BigIntVector("i", allocator); VarCharVector s = new VarCharVector("s", allocator)) {
      v.allocateNew(n);
      s.allocateNew(n * 8L, n);
      for (int i = 0; i < n; i++) {
        v.set(i, i);
        s.setSafe(i, ("k" + i).getBytes(StandardCharsets.UTF_8));
      }
      v.setValueCount(n);
      s.setValueCount(n);
      RowHasher hasher = new RowHasher(new boolean[1]);
      hasher.hash(List.of(v), n, ints);
      hasher.hash(List.of(s), n, strings);
    }
    for (long[] hashes : List.of(ints, strings)) {
      assertEquals(0, collisions(hashes, -1L), "full 64-bit collisions");
      for (int bits : new int[] {16, 20, 21, 24}) {
        long m = 1L << bits;
        double expected = n - m * (1 - Math.exp(-(double) n / m));
        long mask = m - 1;
        long[] folded = new long[n];
        for (int i = 0; i < n; i++) {
          folded[i] = (hashes[i] ^ (hashes[i] >>> 32)) & mask; // the table's tag, placed in 2^bits slots
        }
        long got = collisions(folded, mask);
        assertTrue(Math.abs(got - expected) <= 0.02 * expected + 50,
            bits + " bits: " + got + " colliding keys, ideal " + expected);
      }
    }
  }

  private static long collisions(long[] hashes, long mask) {
    long[] sorted = new long[hashes.length];
    for (int i = 0; i < hashes.length; i++) {
      sorted[i] = hashes[i] & mask;
    }
    Arrays.sort(sorted);
    long dup = 0;
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        dup++;
      }
    }
    return dup;
  }
}
