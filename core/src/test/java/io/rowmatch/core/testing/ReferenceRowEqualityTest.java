package io.rowmatch.core.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.MultiColumnComparator;

/** The oracle itself, pinned by hand against DESIGN.md's table (the differential tests trust it). */
class ReferenceRowEqualityTest extends AllocatorTest {
  private static boolean eq(ValueVector v, int i, int j, boolean nullsEqual, boolean nansEqual) {
    return ReferenceRowEquality.equal(v, i, v, j, nullsEqual, nansEqual);
  }

  @Test
  void nullsNaNsAndSignedZeros() {
    try (Float8Vector d = new Float8Vector("d", allocator); Float2Vector h = new Float2Vector("h", allocator);
        NullVector nv = new NullVector("n", 2)) {
      d.allocateNew(6);
      d.set(0, 0.0);
      d.set(1, -0.0);
      d.set(2, Double.NaN);
      d.set(3, Double.longBitsToDouble(0xfff0000000000abcL));
      d.setNull(4);
      d.setNull(5);
      d.setValueCount(6);
      assertTrue(eq(d, 0, 1, false, false), "-0.0 vs 0.0");
      assertTrue(eq(d, 2, 3, false, true), "NaN payloads, nansEqual");
      assertFalse(eq(d, 2, 3, true, false), "NaN payloads, not nansEqual");
      assertFalse(eq(d, 2, 2, true, false), "a NaN is not itself when NaNs differ");
      assertFalse(eq(d, 0, 2, true, true), "NaN vs a number");
      assertTrue(eq(d, 4, 5, true, false));
      assertFalse(eq(d, 4, 5, false, true));
      assertFalse(eq(d, 4, 4, false, true), "a null is not itself when nulls differ");
      assertFalse(eq(d, 0, 4, true, true), "one null, other valid");
      assertTrue(ReferenceRowEquality.equal(d, 4, nv, 1, true, false), "NullVector rows are nulls");
      assertFalse(ReferenceRowEquality.equal(nv, 0, d, 0, true, true));
      h.allocateNew(3);
      h.set(0, (short) 0x8000);
      h.set(1, (short) 0x0000);
      h.set(2, (short) 0x7c01);
      h.setValueCount(3);
      assertTrue(eq(h, 0, 1, false, false), "half -0.0 vs 0.0");
      assertFalse(eq(h, 2, 2, false, false), "half NaN");
      assertTrue(eq(h, 2, 2, false, true));
    }
    assertTrue(ReferenceRowEquality.rowsEqual(List.of(), 3, List.of(), 9, new boolean[0], new boolean[0]),
        "zero columns");
  }

  @Test
  void nestedValuesCompareElementByElementWithInnerNullsEqual() {
    try (ListVector l = ListVector.empty("l", allocator)) {
      UnionListWriter w = l.getWriter();
      String[][] rows = {{"ab", "c"}, {"a", "bc"}, {"ab", null}, {"ab", null}, {}};
      for (int r = 0; r < rows.length; r++) {
        w.setPosition(r);
        w.startList();
        for (String s : rows[r]) {
          if (s == null) {
            w.writeNull();
          } else {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            try (org.apache.arrow.memory.ArrowBuf buf = allocator.buffer(b.length)) {
              buf.setBytes(0, b);
              w.varChar().writeVarChar(0, b.length, buf);
            }
          }
        }
        w.endList();
      }
      l.setValueCount(rows.length);
      assertFalse(eq(l, 0, 1, true, true), "\"ab\",\"c\" vs \"a\",\"bc\"");
      assertTrue(eq(l, 2, 3, false, false), "inner nulls equal inner nulls, whatever the flags");
      assertFalse(eq(l, 0, 4, true, true));
      assertTrue(eq(l, 4, 4, false, false));
    }
  }

  /**
   * Day-time intervals compare by (days, milliseconds), as the comparator does: Arrow's getObject would
   * make 1 day equal 86,400,000 ms.
   */
  @Test
  void dayTimeIntervalsCompareByTheirFields() {
    try (IntervalDayVector v = new IntervalDayVector("iv", allocator)) {
      v.allocateNew(2);
      v.set(0, 1, 0);
      v.set(1, 0, 86_400_000);
      v.setValueCount(2);
      assertEquals(v.getObject(0), v.getObject(1));
      assertFalse(eq(v, 0, 1, true, true));
      try (MultiColumnComparator c = MultiColumnComparator.build(List.of(v), List.of(v), new boolean[] {true},
          new boolean[] {true})) {
        assertFalse(c.equal(0, 1));
        assertTrue(c.equal(1, 1));
      }
    }
  }

  @Test
  void keysOfEqualRowsAreEqualHashMapKeys() {
    try (VarCharVector s = new VarCharVector("s", allocator)) {
      s.allocateNew();
      s.setSafe(0, "é".getBytes(StandardCharsets.UTF_8));
      s.setSafe(1, "é".getBytes(StandardCharsets.UTF_8));
      s.setNull(2);
      s.setValueCount(3);
      boolean[] t = {true};
      List<Object> a = ReferenceRowEquality.key(List.of(s), 0, t, t);
      List<Object> b = ReferenceRowEquality.key(List.of(s), 1, t, t);
      assertEquals(a, b);
      assertEquals(a.hashCode(), b.hashCode());
      assertEquals(ReferenceRowEquality.key(List.of(s), 2, t, t), List.of(ReferenceRowEquality.NULL));
    }
  }
}
