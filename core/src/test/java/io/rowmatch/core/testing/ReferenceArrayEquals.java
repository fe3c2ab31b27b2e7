package io.rowmatch.core.testing;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The slow, obvious whole-array equality oracle that {@code ArrayEquals} is checked against: Arrow C++
 * {@code ArrayEquals} semantics (DESIGN.md: same type and length, the same validity at every position,
 * payloads under nulls ignored, {@code nansEqual} and {@code signedZerosEqual} settable), element by
 * element through the vectors' own accessors (isNull, getObject, list start/end indexes), no shared code
 * with main. A different contract from row equality ({@link ReferenceRowEquality}): here a null equals a
 * null, always, and -0.0 may differ from 0.0.
 */
public final class ReferenceArrayEquals {
  private final boolean nansEqual;
  private final boolean signedZerosEqual;

  public ReferenceArrayEquals(boolean nansEqual, boolean signedZerosEqual) {
    this.nansEqual = nansEqual;
    this.signedZerosEqual = signedZerosEqual;
  }

  public boolean rangeEquals(ValueVector l, int ls, ValueVector r, int rs, int n) {
    if (!sameType(l.getField(), r.getField())) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (!elementEquals(l, ls + i, r, rs + i)) {
        return false;
      }
    }
    return true;
  }

  public boolean equals(ValueVector l, ValueVector r) {
    return l.getValueCount() == r.getValueCount() && rangeEquals(l, 0, r, 0, l.getValueCount());
  }

  private static boolean sameType(Field a, Field b) {
    if (!a.getType().equals(b.getType()) || a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      if (!sameType(a.getChildren().get(i), b.getChildren().get(i))) {
        return false;
      }
    }
    return true;
  }

  private boolean elementEquals(ValueVector l, int i, ValueVector r, int j) {
    boolean ln = l.isNull(i);
    if (ln != r.isNull(j)) {
      return false;
    }
    if (ln) {
      return true;
    }
    if (l instanceof StructVector) {
      List<ValueVector> lc = List.copyOf(((StructVector) l).getChildrenFromFields());
      List<ValueVector> rc = List.copyOf(((StructVector) r).getChildrenFromFields());
      for (int c = 0; c < lc.size(); c++) {
        if (!elementEquals(lc.get(c), i, rc.get(c), j)) {
          return false;
        }
      }
      return true;
    }
    if (l instanceof ListVector) {
      ListVector a = (ListVector) l;
      ListVector b = (ListVector) r;
      return elementsEqual(a.getDataVector(), a.getElementStartIndex(i), a.getElementEndIndex(i),
          b.getDataVector(), b.getElementStartIndex(j), b.getElementEndIndex(j));
    }
    if (l instanceof LargeListVector) {
      LargeListVector a = (LargeListVector) l;
      LargeListVector b = (LargeListVector) r;
      return elementsEqual(a.getDataVector(), a.getElementStartIndex(i), a.getElementEndIndex(i),
          b.getDataVector(), b.getElementStartIndex(j), b.getElementEndIndex(j));
    }
    if (l instanceof FixedSizeListVector) {
      int size = ((ArrowType.FixedSizeList) l.getField().getType()).getListSize();
      return elementsEqual(((FixedSizeListVector) l).getDataVector(), (long) i * size, (long) (i + 1) * size,
          ((FixedSizeListVector) r).getDataVector(), (long) j * size, (long) (j + 1) * size);
    }
    if (l instanceof Float8Vector) {
      return doublesEqual(((Float8Vector) l).get(i), ((Float8Vector) r).get(j));
    }
    if (l instanceof Float4Vector) {
      return doublesEqual(((Float4Vector) l).get(i), ((Float4Vector) r).get(j));
    }
    if (l instanceof Float2Vector) {
      return doublesEqual(Float16.toFloat(((Float2Vector) l).get(i)), Float16.toFloat(((Float2Vector) r).get(j)));
    }
    Object a = l.getObject(i);
    Object b = r.getObject(j);
    if (a instanceof byte[] && b instanceof byte[]) {
      return Arrays.equals((byte[]) a, (byte[]) b);
    }
    return Objects.equals(a, b);
  }

  private boolean elementsEqual(ValueVector l, long ls, long le, ValueVector r, long rs, long re) {
    if (le - ls != re - rs) {
      return false;
    }
    for (long k = 0; k < le - ls; k++) {
      if (!elementEquals(l, (int) (ls + k), r, (int) (rs + k))) {
        return false;
      }
    }
    return true;
  }

  private boolean doublesEqual(double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return nansEqual && Double.isNaN(a) && Double.isNaN(b);
    }
    if (a == 0 && b == 0) {
      return signedZerosEqual || Double.compare(a, b) == 0;
    }
    return a == b;
  }
}
