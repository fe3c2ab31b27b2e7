package io.rowmatch.core.testing;

import java.util.List;
import java.util.Objects;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * The slow, obvious row-equality oracle the tests hold Rowmatch to: boxed values through Arrow's own
 * getters, the semantics table of DESIGN.md spelled out case by case.
 */
public final class ReferenceEquality {
  private ReferenceEquality() {}

  public static boolean rowsEqual(List<? extends ValueVector> left, int i, List<? extends ValueVector> right, int j,
      boolean[] nullsEqual, boolean[] nansEqual) {
    for (int c = 0; c < left.size(); c++) {
      if (!equal(left.get(c), i, right.get(c), j, nullsEqual[c], nansEqual[c])) {
        return false;
      }
    }
    return true;
  }

  public static boolean equal(ValueVector l, int i, ValueVector r, int j, boolean nullsEqual, boolean nansEqual) {
    boolean ln = l instanceof NullVector || l.isNull(i);
    boolean rn = r instanceof NullVector || r.isNull(j);
    if (ln || rn) {
      return ln && rn && nullsEqual;
    }
    if (l instanceof Float8Vector) {
      return floats(((Float8Vector) l).get(i), ((Float8Vector) r).get(j), nansEqual);
    }
    if (l instanceof Float4Vector) {
      return floats(((Float4Vector) l).get(i), ((Float4Vector) r).get(j), nansEqual);
    }
    if (l instanceof Float2Vector) {
      return floats(((Float2Vector) l).getValueAsFloat(i), ((Float2Vector) r).getValueAsFloat(j), nansEqual);
    }
    if (l instanceof StructVector) {
      List<FieldVector> lc = ((StructVector) l).getChildrenFromFields();
      List<FieldVector> rc = ((StructVector) r).getChildrenFromFields();
      for (int k = 0; k < lc.size(); k++) {
        if (!equal(lc.get(k), i, rc.get(k), j, true, nansEqual)) {
          return false;
        }
      }
      return true;
    }
    if (l instanceof ListVector) {
      ListVector a = (ListVector) l;
      ListVector b = (ListVector) r;
      return elements(a.getDataVector(), a.getElementStartIndex(i), a.getElementEndIndex(i), b.getDataVector(),
          b.getElementStartIndex(j), b.getElementEndIndex(j), nansEqual);
    }
    if (l instanceof LargeListVector) {
      LargeListVector a = (LargeListVector) l;
      LargeListVector b = (LargeListVector) r;
      return elements(a.getDataVector(), (int) a.getElementStartIndex(i), (int) a.getElementEndIndex(i),
          b.getDataVector(), (int) b.getElementStartIndex(j), (int) b.getElementEndIndex(j), nansEqual);
    }
    if (l instanceof FixedSizeListVector) {
      int size = ((FixedSizeListVector) l).getListSize();
      return elements(((FixedSizeListVector) l).getDataVector(), i * size, (i + 1) * size,
          ((FixedSizeListVector) r).getDataVector(), j * size, (j + 1) * size, nansEqual);
    }
    return Objects.deepEquals(l.getObject(i), r.getObject(j));
  }

  private static boolean elements(ValueVector l, int ls, int le, ValueVector r, int rs, int re, boolean nansEqual) {
    if (le - ls != re - rs) {
      return false;
    }
    for (int k = 0; k < le - ls; k++) {
      if (!equal(l, ls + k, r, rs + k, true, nansEqual)) {
        return false;
      }
    }
    return true;
  }

  private static boolean floats(double a, double b, boolean nansEqual) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return nansEqual && Double.isNaN(a) && Double.isNaN(b);
    }
    return a == b; // -0.0 == 0.0
  }
}
