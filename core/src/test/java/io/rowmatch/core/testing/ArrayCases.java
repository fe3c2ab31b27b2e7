package io.rowmatch.core.testing;

import static io.rowmatch.core.testing.SupportedTypes.leaf;
import static io.rowmatch.core.testing.SupportedTypes.nested;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Cases for the whole-array equality fuzz ({@code compare/ArrayEqualsFuzzTest}, checked against
 * {@link ReferenceArrayEquals}): types ArrayEquals supports, each with a way to write "value number k"
 * into a vector, so tests can build two vectors holding the same logical values with different physical
 * layouts (garbage under nulls, different offsets) or one changed value. Float pools come in pairs
 * (k, k ^ 1) that differ only by the float rules. Random vectors of every type are {@link RandomVectors}.
 */
public final class ArrayCases {
  private ArrayCases() {}

  /** Writes logical value {@code k} (any int >= 0) at row {@code i}; the same k always means an equal value. */
  public interface Setter {
    void set(ValueVector v, int i, int k);
  }

  public record Case(String name, Field field, Setter setter) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final String[] STRINGS = {"", "a", "ab", "c", "bc", "héllo wörld", "漢字かな", "exactly12byt",
      "thirteen byte", "a considerably longer string that is out of line in views", "\u0000zero", "x"};
  // Pools arranged in pairs (k, k ^ 1) that differ only by the float rules: 0.0/-0.0, then two NaN payloads.
  private static final double[] DOUBLES = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8000000000123L),
      Double.longBitsToDouble(0xfff0000000000001L), Double.longBitsToDouble(0xfff8000000000000L), 1.5, -2.25,
      Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
  private static final float[] FLOATS = {0f, -0f, Float.NaN, Float.intBitsToFloat(0x7fc00123), Float.intBitsToFloat(0xff800001),
      Float.intBitsToFloat(0xffc00000), 1.5f, -2.25f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY};
  private static final short[] HALVES = {0x0000, (short) 0x8000, 0x7e00, 0x7c01, (short) 0xfe00, (short) 0xfc10, 0x3c00,
      (short) 0xc000, 0x7c00, (short) 0xfc00};

  private static byte[] bytes(int k) {
    return STRINGS[k % STRINGS.length].getBytes(StandardCharsets.UTF_8);
  }

  public static List<Case> all() {
    List<Case> cases = new ArrayList<>();
    cases.add(new Case("bit", leaf("v", ArrowType.Bool.INSTANCE), (v, i, k) -> ((BitVector) v).setSafe(i, k & 1)));
    cases.add(new Case("tinyint", leaf("v", new ArrowType.Int(8, true)), (v, i, k) -> ((TinyIntVector) v).setSafe(i, k % 7)));
    cases.add(new Case("smallint", leaf("v", new ArrowType.Int(16, true)), (v, i, k) -> ((SmallIntVector) v).setSafe(i, k * 301)));
    cases.add(new Case("int", leaf("v", new ArrowType.Int(32, true)), (v, i, k) -> ((IntVector) v).setSafe(i, k * 70001)));
    cases.add(new Case("bigint", leaf("v", new ArrowType.Int(64, true)), (v, i, k) -> ((BigIntVector) v).setSafe(i, k * 1_000_000_007L)));
    cases.add(new Case("uint1", leaf("v", new ArrowType.Int(8, false)), (v, i, k) -> ((UInt1Vector) v).setSafe(i, k % 5)));
    cases.add(new Case("uint2", leaf("v", new ArrowType.Int(16, false)), (v, i, k) -> ((UInt2Vector) v).setSafe(i, k % 9)));
    cases.add(new Case("uint4", leaf("v", new ArrowType.Int(32, false)), (v, i, k) -> ((UInt4Vector) v).setSafe(i, k)));
    cases.add(new Case("uint8", leaf("v", new ArrowType.Int(64, false)), (v, i, k) -> ((UInt8Vector) v).setSafe(i, -k)));
    cases.add(new Case("float16", leaf("v", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
        (v, i, k) -> ((Float2Vector) v).setSafe(i, HALVES[k % HALVES.length])));
    cases.add(new Case("float32", leaf("v", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        (v, i, k) -> ((Float4Vector) v).setSafe(i, FLOATS[k % FLOATS.length])));
    cases.add(new Case("float64", leaf("v", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        (v, i, k) -> ((Float8Vector) v).setSafe(i, DOUBLES[k % DOUBLES.length])));
    cases.add(new Case("decimal", leaf("v", new ArrowType.Decimal(12, 2, 128)),
        (v, i, k) -> ((DecimalVector) v).setSafe(i, BigDecimal.valueOf(k * 12345L - 40000, 2))));
    cases.add(new Case("decimal256", leaf("v", new ArrowType.Decimal(40, 3, 256)),
        (v, i, k) -> ((Decimal256Vector) v).setSafe(i, BigDecimal.valueOf(k * 987654321L - 5, 3))));
    cases.add(new Case("fixedbinary5", leaf("v", new ArrowType.FixedSizeBinary(5)),
        (v, i, k) -> ((FixedSizeBinaryVector) v).setSafe(i, new byte[] {(byte) k, 1, 2, (byte) (k >> 3), 9})));
    cases.add(new Case("dateday", leaf("v", new ArrowType.Date(DateUnit.DAY)), (v, i, k) -> ((DateDayVector) v).setSafe(i, k * 3)));
    cases.add(new Case("timestamp_us", leaf("v", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
        (v, i, k) -> ((TimeStampMicroVector) v).setSafe(i, k * 86_400_000_000L)));
    cases.add(new Case("duration", leaf("v", new ArrowType.Duration(TimeUnit.MICROSECOND)),
        (v, i, k) -> ((DurationVector) v).setSafe(i, k * 11L)));
    cases.add(new Case("interval_mdn", leaf("v", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)),
        (v, i, k) -> ((IntervalMonthDayNanoVector) v).setSafe(i, k % 3, k % 5, k * 7L)));
    cases.add(new Case("varchar", leaf("v", ArrowType.Utf8.INSTANCE), (v, i, k) -> ((BaseVariableWidthVector) v).setSafe(i, bytes(k))));
    cases.add(new Case("varbinary", leaf("v", ArrowType.Binary.INSTANCE), (v, i, k) -> ((BaseVariableWidthVector) v).setSafe(i, bytes(k))));
    cases.add(new Case("largevarchar", leaf("v", ArrowType.LargeUtf8.INSTANCE),
        (v, i, k) -> ((BaseLargeVariableWidthVector) v).setSafe(i, bytes(k))));
    cases.add(new Case("largevarbinary", leaf("v", ArrowType.LargeBinary.INSTANCE),
        (v, i, k) -> ((BaseLargeVariableWidthVector) v).setSafe(i, bytes(k))));
    cases.add(new Case("viewvarchar", leaf("v", ArrowType.Utf8View.INSTANCE),
        (v, i, k) -> ((BaseVariableWidthViewVector) v).setSafe(i, bytes(k))));
    cases.add(new Case("viewvarbinary", leaf("v", ArrowType.BinaryView.INSTANCE),
        (v, i, k) -> ((BaseVariableWidthViewVector) v).setSafe(i, bytes(k))));
    cases.add(new Case("null", leaf("v", ArrowType.Null.INSTANCE), (v, i, k) -> { }));
    cases.add(new Case("struct<int,varchar,float64>", nested("v", ArrowType.Struct.INSTANCE,
        leaf("a", new ArrowType.Int(32, true)), leaf("b", ArrowType.Utf8.INSTANCE),
        leaf("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))), ArrayCases::setStruct));
    cases.add(new Case("list<float64>", nested("v", ArrowType.List.INSTANCE,
        leaf("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))), ArrayCases::setListOfDoubles));
    cases.add(new Case("largelist<varchar>", nested("v", ArrowType.LargeList.INSTANCE,
        leaf("item", ArrowType.Utf8.INSTANCE)), ArrayCases::setLargeListOfStrings));
    cases.add(new Case("fixedlist3<int>", nested("v", new ArrowType.FixedSizeList(3),
        leaf("item", new ArrowType.Int(32, true))), ArrayCases::setFixedList));
    cases.add(new Case("map<varchar,int>", new Field("v", FieldType.nullable(new ArrowType.Map(false)),
        List.of(new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
            new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            leaf("value", new ArrowType.Int(32, true)))))), ArrayCases::setMap));
    cases.add(new Case("list<struct<float32,varbinary>>", nested("v", ArrowType.List.INSTANCE,
        nested("item", ArrowType.Struct.INSTANCE, leaf("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            leaf("y", ArrowType.Binary.INSTANCE))), ArrayCases::setListOfStructs));
    return cases;
  }

  /** Builds a vector of {@code ks} with nulls where {@code !valid}; {@code garbage} writes a value under nulls first. */
  public static ValueVector build(Case c, BufferAllocator allocator, int[] ks, boolean[] valid, int[] garbage) {
    ValueVector v = c.field().createVector(allocator);
    v.allocateNew();
    int n = ks.length;
    for (int i = 0; i < n; i++) {
      if (valid[i]) {
        c.setter().set(v, i, ks[i]);
      } else {
        if (garbage != null) {
          c.setter().set(v, i, garbage[i]);
        }
        setNull(v, i);
      }
    }
    v.setValueCount(n);
    return v;
  }

  public static void setNull(ValueVector v, int i) {
    if (v instanceof BaseFixedWidthVector) {
      ((BaseFixedWidthVector) v).setNull(i);
    } else if (v instanceof BaseVariableWidthVector) {
      ((BaseVariableWidthVector) v).setNull(i);
    } else if (v instanceof BaseLargeVariableWidthVector) {
      ((BaseLargeVariableWidthVector) v).setNull(i);
    } else if (v instanceof BaseVariableWidthViewVector) {
      ((BaseVariableWidthViewVector) v).setNull(i);
    } else if (v instanceof StructVector) {
      ((StructVector) v).setNull(i);
    } else if (v instanceof ListVector) {
      ((ListVector) v).setNull(i);
    } else if (v instanceof LargeListVector) {
      ((LargeListVector) v).setNull(i);
    } else if (v instanceof FixedSizeListVector) {
      ((FixedSizeListVector) v).setNull(i);
    } else if (!(v instanceof NullVector)) {
      throw new IllegalArgumentException("no setNull for " + v.getClass());
    }
  }

  /** Child element j of logical value k: null for some (k, j), else a value derived from both. */
  private static boolean childNull(int k, int j) {
    return (k * 7 + j * 3) % 5 == 4;
  }

  private static void setStruct(ValueVector v, int i, int k) {
    StructVector s = (StructVector) v;
    IntVector a = (IntVector) s.getChild("a");
    if (k % 6 == 5) {
      a.setNull(i);
    } else {
      a.setSafe(i, k / 3);
    }
    ((BaseVariableWidthVector) s.getChild("b")).setSafe(i, bytes(k));
    ((Float8Vector) s.getChild("c")).setSafe(i, DOUBLES[k % DOUBLES.length]);
    s.setIndexDefined(i);
  }

  private static void setListOfDoubles(ValueVector v, int i, int k) {
    ListVector list = (ListVector) v;
    Float8Vector items = (Float8Vector) list.getDataVector();
    int start = list.startNewValue(i);
    int size = k % 4;
    for (int j = 0; j < size; j++) {
      if (childNull(k, j)) {
        items.setNull(start + j);
      } else {
        items.setSafe(start + j, DOUBLES[(k + j) % DOUBLES.length]);
      }
    }
    list.endValue(i, size);
  }

  private static void setLargeListOfStrings(ValueVector v, int i, int k) {
    LargeListVector list = (LargeListVector) v;
    BaseVariableWidthVector items = (BaseVariableWidthVector) list.getDataVector();
    int start = (int) list.startNewValue(i);
    int size = k % 5;
    for (int j = 0; j < size; j++) {
      if (childNull(k, j)) {
        items.setNull(start + j);
      } else {
        items.setSafe(start + j, bytes(k * 3 + j));
      }
    }
    list.endValue(i, size);
  }

  private static void setFixedList(ValueVector v, int i, int k) {
    FixedSizeListVector list = (FixedSizeListVector) v;
    IntVector items = (IntVector) list.getDataVector();
    for (int j = 0; j < 3; j++) {
      if (childNull(k, j)) {
        items.setNull(i * 3 + j);
      } else {
        items.setSafe(i * 3 + j, k * 10 + j);
      }
    }
    list.setNotNull(i);
  }

  private static void setMap(ValueVector v, int i, int k) {
    ListVector map = (ListVector) v;
    StructVector entries = (StructVector) map.getDataVector();
    BaseVariableWidthVector keys = (BaseVariableWidthVector) entries.getChild("key");
    IntVector values = (IntVector) entries.getChild("value");
    int start = map.startNewValue(i);
    int size = k % 3;
    for (int j = 0; j < size; j++) {
      keys.setSafe(start + j, bytes(k + j));
      if (childNull(k, j)) {
        values.setNull(start + j);
      } else {
        values.setSafe(start + j, k - j);
      }
      entries.setIndexDefined(start + j);
    }
    map.endValue(i, size);
  }

  private static void setListOfStructs(ValueVector v, int i, int k) {
    ListVector list = (ListVector) v;
    StructVector items = (StructVector) list.getDataVector();
    Float4Vector x = (Float4Vector) items.getChild("x");
    BaseVariableWidthVector y = (BaseVariableWidthVector) items.getChild("y");
    int start = list.startNewValue(i);
    int size = k % 3;
    for (int j = 0; j < size; j++) {
      int e = start + j;
      if (childNull(k, j)) {
        items.setNull(e);
        // Children of a null struct element still get a slot (and garbage) so offsets line up.
        x.setSafe(e, FLOATS[(k + 5) % FLOATS.length]);
        y.setNull(e);
      } else {
        x.setSafe(e, FLOATS[(k + j) % FLOATS.length]);
        y.setSafe(e, bytes(k + 2 * j));
        items.setIndexDefined(e);
      }
    }
    list.endValue(i, size);
  }
}
