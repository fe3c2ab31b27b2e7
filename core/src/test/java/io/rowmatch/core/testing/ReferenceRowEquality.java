package io.rowmatch.core.testing;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.holders.NullableIntervalDayHolder;
import org.apache.arrow.vector.util.Text;

/**
 * The slow, obvious row-equality oracle the tests hold Rowmatch to (DESIGN.md, "Core semantics"): a row
 * becomes a list of boxed Java values, read through Arrow's own getters, whose {@code equals} is the
 * contract. The table of DESIGN.md, line by line:
 * <ul>
 *   <li>both null: {@link #NULL} on both sides when {@code nullsEqual[c]}, otherwise a fresh marker that
 *       equals nothing but itself; one null, other valid: a marker never equals a value;
 *   <li>a {@code NullVector} column: every row null, as above;
 *   <li>NaN (any payload): one NaN marker when {@code nansEqual[c]}, otherwise a fresh marker; -0.0 is boxed
 *       as 0.0; other floats as themselves;
 *   <li>nested values: a list of their elements' values under the same rules, where an inner null is always
 *       {@link #NULL} (inner nulls equal inner nulls), and NaNs follow the column's {@code nansEqual};
 *   <li>zero columns: the empty list, equal to every other.
 * </ul>
 * Two keys built by separate {@link #key} calls are equal exactly when the rows are equal, so keys serve
 * as {@code HashMap} keys (a row with an unmatched null or NaN finds no other row, not even itself).
 */
public final class ReferenceRowEquality {
  private ReferenceRowEquality() {}

  /** A null that equals other nulls. */
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

  /** A null or NaN that equals nothing else (identity equality, a fresh one each time). */
  private static final class Unmatched {
    private final String what;

    Unmatched(String what) {
      this.what = what;
    }

    @Override
    public String toString() {
      return what + "(unmatched)";
    }
  }

  /** Row {@code row} of {@code columns} as boxed values whose {@code equals} is row equality. */
  public static List<Object> key(List<? extends ValueVector> columns, int row, boolean[] nullsEqual,
      boolean[] nansEqual) {
    List<Object> out = new ArrayList<>(columns.size());
    for (int c = 0; c < columns.size(); c++) {
      ValueVector v = columns.get(c);
      if (isNull(v, row)) {
        out.add(nullsEqual[c] ? NULL : new Unmatched("null"));
      } else {
        out.add(value(v, row, nansEqual[c]));
      }
    }
    return out;
  }

  /** Whether row {@code i} of {@code left} equals row {@code j} of {@code right}, column by column. */
  public static boolean rowsEqual(List<? extends ValueVector> left, int i, List<? extends ValueVector> right, int j,
      boolean[] nullsEqual, boolean[] nansEqual) {
    if (left.size() != right.size()) {
      throw new IllegalArgumentException(left.size() + " left columns, " + right.size() + " right");
    }
    return key(left, i, nullsEqual, nansEqual).equals(key(right, j, nullsEqual, nansEqual));
  }

  /** One column's rows: {@link #rowsEqual} of a one-column key. */
  public static boolean equal(ValueVector l, int i, ValueVector r, int j, boolean nullsEqual, boolean nansEqual) {
    return rowsEqual(List.of(l), i, List.of(r), j, new boolean[] {nullsEqual}, new boolean[] {nansEqual});
  }

  private static boolean isNull(ValueVector v, int row) {
    return v instanceof NullVector || v.isNull(row);
  }

  private static Object value(ValueVector v, int row, boolean nansEqual) {
    if (isNull(v, row)) {
      return NULL; // nested: inner nulls equal inner nulls
    }
    if (v instanceof Float2Vector) {
      return floating(((Float2Vector) v).getValueAsFloat(row), nansEqual);
    }
    if (v instanceof Float4Vector) {
      return floating(((Float4Vector) v).get(row), nansEqual);
    }
    if (v instanceof Float8Vector) {
      double d = ((Float8Vector) v).get(row);
      if (Double.isNaN(d)) {
        return nansEqual ? NAN : new Unmatched("NaN");
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
    if (v instanceof ListVector) { // map vectors too: a list of entry structs
      ListVector l = (ListVector) v;
      return elements(l.getDataVector(), l.getElementStartIndex(row), l.getElementEndIndex(row), nansEqual);
    }
    if (v instanceof LargeListVector) {
      LargeListVector l = (LargeListVector) v;
      return elements(l.getDataVector(), Math.toIntExact(l.getElementStartIndex(row)),
          Math.toIntExact(l.getElementEndIndex(row)), nansEqual);
    }
    if (v instanceof FixedSizeListVector) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      return elements(l.getDataVector(), row * l.getListSize(), (row + 1) * l.getListSize(), nansEqual);
    }
    if (v instanceof FixedSizeBinaryVector) {
      return ByteBuffer.wrap(((FixedSizeBinaryVector) v).get(row));
    }
    if (v instanceof IntervalDayVector) {
      // Its getObject is a Duration, which would make (1 day, 0 ms) equal (0 days, 86,400,000 ms).
      NullableIntervalDayHolder h = new NullableIntervalDayHolder();
      ((IntervalDayVector) v).get(row, h);
      return List.of("daytime", h.days, h.milliseconds);
    }
    if (v instanceof BaseFixedWidthVector) {
      return v.getObject(row);
    }
    Object o = v.getObject(row);
    if (o instanceof byte[]) {
      return ByteBuffer.wrap((byte[]) o);
    }
    if (o instanceof Text) { // VarChar, LargeVarChar, ViewVarChar: compare the bytes
      Text t = (Text) o;
      return ByteBuffer.wrap(Arrays.copyOf(t.getBytes(), Math.toIntExact(t.getLength())));
    }
    throw new IllegalArgumentException("the reference does not know " + v.getClass().getSimpleName());
  }

  private static Object floating(float f, boolean nansEqual) {
    if (Float.isNaN(f)) {
      return nansEqual ? NAN : new Unmatched("NaN");
    }
    return f == 0f ? 0f : f;
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
