package io.rowmatch.core.testutil;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
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
 * The slow, obvious reference: a row as boxed Java values whose {@code equals} is the comparator's
 * equality. A null where nulls are not equal, or a NaN where NaNs are not equal, becomes a fresh object
 * that equals nothing else.
 */
public final class RowReference {
  private RowReference() {}

  /** Marker for a null that equals other nulls. */
  public static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "NULL";
    }
  };

  private static final Object NAN = new Object() {
    @Override
    public String toString() {
      return "NaN";
    }
  };

  public static List<Object> key(List<? extends ValueVector> columns, int row, boolean[] nullsEqual,
      boolean[] nansEqual) {
    List<Object> out = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      ValueVector v = columns.get(c);
      boolean isNull = v instanceof NullVector || v.isNull(row);
      if (isNull) {
        out.add(nullsEqual[c] ? NULL : new Object());
      } else {
        out.add(value(v, row, nansEqual[c]));
      }
    }
    return out;
  }

  /** True when the key equals itself (no unmatched null or NaN inside). */
  public static boolean selfEqual(List<Object> key) {
    return key.equals(new ArrayList<>(key));
  }

  static Object value(ValueVector v, int row, boolean nansEqual) {
    if (v instanceof NullVector || v.isNull(row)) {
      return NULL;
    }
    if (v instanceof Float2Vector) {
      short bits = ((Float2Vector) v).get(row);
      boolean nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
      if (nan) {
        return nansEqual ? NAN : new Object();
      }
      return (bits & 0x7fff) == 0 ? (short) 0 : bits;
    }
    if (v instanceof Float4Vector) {
      float f = ((Float4Vector) v).get(row);
      if (Float.isNaN(f)) {
        return nansEqual ? NAN : new Object();
      }
      return f == 0f ? 0f : f;
    }
    if (v instanceof Float8Vector) {
      double d = ((Float8Vector) v).get(row);
      if (Double.isNaN(d)) {
        return nansEqual ? NAN : new Object();
      }
      return d == 0d ? 0d : d;
    }
    if (v instanceof StructVector) {
      List<Object> out = new ArrayList<>();
      out.add("struct");
      for (ValueVector child : ((StructVector) v).getChildrenFromFields()) {
        out.add(value(child, row, nansEqual));
      }
      return out;
    }
    if (v instanceof ListVector) {
      ListVector l = (ListVector) v;
      return elements(l.getDataVector(), l.getElementStartIndex(row), l.getElementEndIndex(row), nansEqual);
    }
    if (v instanceof LargeListVector) {
      LargeListVector l = (LargeListVector) v;
      return elements(l.getDataVector(), (int) l.getElementStartIndex(row), (int) l.getElementEndIndex(row),
          nansEqual);
    }
    if (v instanceof FixedSizeListVector) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      return elements(l.getDataVector(), row * l.getListSize(), (row + 1) * l.getListSize(), nansEqual);
    }
    if (v instanceof FixedSizeBinaryVector) {
      return ByteBuffer.wrap(((FixedSizeBinaryVector) v).get(row));
    }
    if (v instanceof BaseFixedWidthVector) {
      return v.getObject(row);
    }
    Object o = v.getObject(row);
    if (o instanceof byte[]) {
      return ByteBuffer.wrap((byte[]) o);
    }
    // Text (VarChar, LargeVarChar, ViewVarChar): compare the bytes.
    return ByteBuffer.wrap(Arrays.copyOf(((org.apache.arrow.vector.util.Text) o).getBytes(),
        (int) ((org.apache.arrow.vector.util.Text) o).getLength()));
  }

  private static List<Object> elements(ValueVector child, int start, int end, boolean nansEqual) {
    List<Object> out = new ArrayList<>();
    out.add("list");
    for (int i = start; i < end; i++) {
      out.add(value(child, i, nansEqual));
    }
    return out;
  }
}
