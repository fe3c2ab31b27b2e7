package io.rowmatch.core;

import static io.rowmatch.core.testing.TestVectors.ints;
import static io.rowmatch.core.testing.TestVectors.strings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/** The semantics table and the argument checks, case by case. */
class MultiColumnComparatorEdgeCasesTest extends AllocatorTest {
  private Float8Vector doubles(double... values) {
    Float8Vector v = new Float8Vector("d", allocator);
    v.allocateNew(Math.max(1, values.length));
    for (int i = 0; i < values.length; i++) {
      v.getDataBuffer().setLong(8L * i, Double.doubleToRawLongBits(values[i]));
      v.setIndexDefined(i);
    }
    v.setValueCount(values.length);
    return v;
  }

  private static MultiColumnComparator cmp(List<? extends ValueVector> l, List<? extends ValueVector> r,
      boolean nullsEqual, boolean nansEqual) {
    boolean[] ne = new boolean[l.size()];
    boolean[] na = new boolean[l.size()];
    java.util.Arrays.fill(ne, nullsEqual);
    java.util.Arrays.fill(na, nansEqual);
    return MultiColumnComparator.build(l, r, ne, na);
  }

  @Test
  void nullVectorOnEitherSideIsNullAtEveryRow() {
    try (IntVector typed = ints(allocator, 1, null, 3); NullVector nulls = new NullVector("n", 2)) {
      for (boolean nullsEqual : new boolean[] {false, true}) {
        try (MultiColumnComparator lr = cmp(List.of(typed), List.of(nulls), nullsEqual, false);
            MultiColumnComparator rl = cmp(List.of(nulls), List.of(typed), nullsEqual, false)) {
          for (int nullRow = 0; nullRow < 2; nullRow++) {
            assertFalse(lr.equal(0, nullRow));
            assertFalse(rl.equal(nullRow, 0));
            assertEquals(nullsEqual, lr.equal(1, nullRow));
            assertEquals(nullsEqual, rl.equal(nullRow, 1));
            assertFalse(lr.equal(2, nullRow));
          }
        }
      }
      try (NullVector other = new NullVector("m", 3);
          MultiColumnComparator both = cmp(List.of(nulls), List.of(other), true, false)) {
        assertTrue(both.equal(1, 2));
      }
    }
  }

  @Test
  void oneSideNullIsNeverEqualWhateverTheFlags() {
    try (IntVector l = ints(allocator, 5, null); IntVector r = ints(allocator, null, 5)) {
      for (int flags = 0; flags < 4; flags++) {
        try (MultiColumnComparator c = cmp(List.of(l), List.of(r), (flags & 1) != 0, (flags & 2) != 0)) {
          assertFalse(c.equal(0, 0));
          assertFalse(c.equal(1, 1));
          assertEquals((flags & 1) != 0, c.equal(1, 0));
        }
      }
    }
  }

  @Test
  void aNullHidingAnEqualPayloadIsStillNull() {
    try (IntVector l = ints(allocator, 7); IntVector r = ints(allocator, 7)) {
      r.setNull(0); // the 7 stays in the data buffer under the null
      assertEquals(7, r.getDataBuffer().getInt(0));
      try (MultiColumnComparator c = cmp(List.of(l), List.of(r), true, true)) {
        assertFalse(c.equal(0, 0));
      }
    }
  }

  @Test
  void nanPayloadsAndSignedZeros() {
    double nanA = Double.longBitsToDouble(0x7ff8000000000000L);
    double nanB = Double.longBitsToDouble(0xfff0000000000001L);
    try (Float8Vector l = doubles(nanA, -0.0, nanA, 1.0); Float8Vector r = doubles(nanB, 0.0, 1.0, 1.0)) {
      try (MultiColumnComparator nansEqual = cmp(List.of(l), List.of(r), false, true);
          MultiColumnComparator nansDiffer = cmp(List.of(l), List.of(r), false, false)) {
        assertTrue(nansEqual.equal(0, 0));
        assertFalse(nansDiffer.equal(0, 0));
        assertTrue(nansEqual.equal(1, 1));
        assertTrue(nansDiffer.equal(1, 1));
        assertFalse(nansEqual.equal(2, 2)); // NaN vs a number
        assertTrue(nansDiffer.equal(3, 3));
      }
    }
    try (Float4Vector l = new Float4Vector("f", allocator); Float4Vector r = new Float4Vector("f", allocator)) {
      l.allocateNew(1);
      r.allocateNew(1);
      l.getDataBuffer().setInt(0, 0x7fc00000);
      r.getDataBuffer().setInt(0, 0x7f800001);
      l.setIndexDefined(0);
      r.setIndexDefined(0);
      l.setValueCount(1);
      r.setValueCount(1);
      try (MultiColumnComparator c = cmp(List.of(l), List.of(r), false, true)) {
        assertTrue(c.equal(0, 0));
      }
    }
  }

  @Test
  void onlyTheLastColumnDiffers() {
    try (IntVector a1 = ints(allocator, 1, 2); VarCharVector b1 = strings(allocator, "x", "y"); Float8Vector c1 = doubles(1.0, 2.0);
        IntVector a2 = ints(allocator, 1, 2); VarCharVector b2 = strings(allocator, "x", "y"); Float8Vector c2 = doubles(1.0, 2.5);
        MultiColumnComparator c = cmp(List.of(a1, b1, c1), List.of(a2, b2, c2), false, false)) {
      assertTrue(c.equal(0, 0));
      assertFalse(c.equal(1, 1));
      boolean[] out = new boolean[2];
      c.equalMany(new int[] {0, 1}, new int[] {0, 1}, 2, out);
      assertArrayEquals(new boolean[] {true, false}, out);
    }
  }

  @Test
  void stringBoundariesMatterNotJustConcatenatedBytes() {
    try (VarCharVector l = strings(allocator, "ab", "c", ""); VarCharVector r = strings(allocator, "a", "bc", "");
        MultiColumnComparator c = cmp(List.of(l), List.of(r), false, false)) {
      assertFalse(c.equal(0, 0));
      assertFalse(c.equal(1, 1));
      assertTrue(c.equal(2, 2));
    }
  }

  @Test
  void zeroColumnsMakeEveryPairEqual() {
    try (MultiColumnComparator c = MultiColumnComparator.build(List.of(), List.of(), new boolean[0], new boolean[0])) {
      assertTrue(c.equal(0, 12345));
      boolean[] out = new boolean[3];
      c.equalMany(new int[] {0, 1, 2}, new int[] {9, 8, 7}, 3, out);
      assertArrayEquals(new boolean[] {true, true, true}, out);
    }
  }

  @Test
  void emptyVectorsBuildAndRejectEveryRow() {
    try (IntVector l = ints(allocator); IntVector r = ints(allocator, 1);
        MultiColumnComparator c = cmp(List.of(l), List.of(r), true, true)) {
      assertThrows(IndexOutOfBoundsException.class, () -> c.equal(0, 0));
      c.equalMany(new int[0], new int[0], 0, new boolean[0]);
    }
  }

  @Test
  void rowIndicesOutOfRangeAreRejectedBeforeAnyRead() {
    try (IntVector l = ints(allocator, 1, 2, 3); IntVector r = ints(allocator, 1);
        MultiColumnComparator c = cmp(List.of(l), List.of(r), true, true)) {
      assertThrows(IndexOutOfBoundsException.class, () -> c.equal(3, 0));
      assertThrows(IndexOutOfBoundsException.class, () -> c.equal(-1, 0));
      assertThrows(IndexOutOfBoundsException.class, () -> c.equal(0, 1));
      IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
          () -> c.equalMany(new int[] {0, 1, 2}, new int[] {0, 0, 1}, 3, new boolean[3]));
      assertTrue(e.getMessage().contains("right"), e.getMessage());
      assertThrows(IndexOutOfBoundsException.class,
          () -> c.equalMany(new int[] {0}, new int[] {0}, 2, new boolean[2]));
    }
  }

  @Test
  void argumentErrorsNameTheColumnAndTypes() {
    try (IntVector i = ints(allocator, 1); BigIntVector b = new BigIntVector("b", allocator);
        VarCharVector s = strings(allocator, "x")) {
      b.allocateNew(1);
      b.setValueCount(1);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> MultiColumnComparator.build(List.of(s, i), List.of(s, b), new boolean[2], new boolean[2]));
      assertTrue(e.getMessage().contains("column 1") && e.getMessage().contains("Int(32, true)")
          && e.getMessage().contains("Int(64, true)"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> MultiColumnComparator.build(List.of(i), List.of(i, i), new boolean[1], new boolean[1]));
      assertTrue(e.getMessage().contains("1") && e.getMessage().contains("2"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> MultiColumnComparator.build(List.of(i), List.of(i), new boolean[2], new boolean[1]));
      assertTrue(e.getMessage().contains("nullsEqual"), e.getMessage());
    }
  }

  @Test
  void unsupportedTypesAreRefusedAtBuildNamingColumnAndType() {
    try (IntVector i = ints(allocator, 1); DenseUnionVector u = DenseUnionVector.empty("u", allocator)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> MultiColumnComparator.build(List.of(i, u), List.of(i, u), new boolean[2], new boolean[2]));
      assertTrue(e.getMessage().contains("column 1") && e.getMessage().contains("Union"), e.getMessage());
    }
  }

  @Test
  void columnsOfOneSideMustAgreeOnRowCount() {
    try (IntVector a = ints(allocator, 1, 2); IntVector b = ints(allocator, 1)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> MultiColumnComparator.build(List.of(a, b), List.of(a, a), new boolean[2], new boolean[2]));
      assertTrue(e.getMessage().contains("column 1"), e.getMessage());
    }
  }

  @Test
  void closeReleasesRetainedBuffersAndRefusesLaterCalls() {
    IntVector l = ints(allocator, 1, 2);
    MultiColumnComparator c = cmp(List.of(l), List.of(l), false, false);
    long held = allocator.getAllocatedMemory();
    l.close(); // the comparator still holds the buffers: comparing stays safe
    assertEquals(held, allocator.getAllocatedMemory());
    assertTrue(c.equal(1, 1));
    c.close();
    c.close(); // idempotent
    assertEquals(0, allocator.getAllocatedMemory());
    assertThrows(IllegalStateException.class, () -> c.equal(0, 0));
  }
}
