package io.rowmatch.core.testutil;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
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
 * Random Arrow vectors of every type Rowmatch supports, drawn from small value pools so that equal
 * pairs are common: NaNs with different payloads, -0.0 and 0.0, empty and multibyte strings, strings
 * whose concatenations agree but boundaries differ, view strings just under/over the inline size,
 * nested values with inner nulls, and bytes left under null slots.
 */
public final class OldPoolVectors {
  private OldPoolVectors() {}

  static final long[] DOUBLE_POOL = {
      Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(1.5),
      0x7ff8000000000000L, 0x7ff8000000000001L, 0xfff0000000000abcL, Double.doubleToRawLongBits(-1.0 / 0.0)};
  static final int[] FLOAT_POOL = {
      Float.floatToRawIntBits(0f), Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(2.25f),
      0x7fc00000, 0x7fc00001, 0xff800123, Float.floatToRawIntBits(1f / 0f)};
  static final short[] HALF_POOL = {0x0000, (short) 0x8000, 0x3c00, 0x7e00, 0x7c01, (short) 0xfe03, 0x7c00};
  static final String[] STRING_POOL = {
      "", "a", "ab", "abc", "c", "bc", "é", "日本語", "ab\u0000", "twelve bytes",
      "thirteen byte", "a value longer than twelve bytes", "a value longer than twelve bytez"};

  /** Fields for every supported type, nested ones included. */
  public static List<Field> allTypes() {
    List<Field> f = new ArrayList<>();
    f.add(leaf("bool", new ArrowType.Bool()));
    for (int bits : new int[] {8, 16, 32, 64}) {
      f.add(leaf("int" + bits, new ArrowType.Int(bits, true)));
      f.add(leaf("uint" + bits, new ArrowType.Int(bits, false)));
    }
    f.add(leaf("half", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)));
    f.add(leaf("float", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
    f.add(leaf("double", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)));
    f.add(leaf("dec128", new ArrowType.Decimal(10, 2, 128)));
    f.add(leaf("dec256", new ArrowType.Decimal(40, 5, 256)));
    f.add(leaf("dateday", new ArrowType.Date(DateUnit.DAY)));
    f.add(leaf("datemilli", new ArrowType.Date(DateUnit.MILLISECOND)));
    f.add(leaf("timesec", new ArrowType.Time(TimeUnit.SECOND, 32)));
    f.add(leaf("timemilli", new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
    f.add(leaf("timemicro", new ArrowType.Time(TimeUnit.MICROSECOND, 64)));
    f.add(leaf("timenano", new ArrowType.Time(TimeUnit.NANOSECOND, 64)));
    for (TimeUnit unit : TimeUnit.values()) {
      f.add(leaf("ts_" + unit, new ArrowType.Timestamp(unit, null)));
      f.add(leaf("tstz_" + unit, new ArrowType.Timestamp(unit, "UTC")));
    }
    f.add(leaf("duration", new ArrowType.Duration(TimeUnit.MICROSECOND)));
    f.add(leaf("ivday", new ArrowType.Interval(IntervalUnit.DAY_TIME)));
    f.add(leaf("ivyear", new ArrowType.Interval(IntervalUnit.YEAR_MONTH)));
    f.add(leaf("ivmdn", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)));
    f.add(leaf("fsb", new ArrowType.FixedSizeBinary(5)));
    f.add(leaf("utf8", new ArrowType.Utf8()));
    f.add(leaf("lutf8", new ArrowType.LargeUtf8()));
    f.add(leaf("bin", new ArrowType.Binary()));
    f.add(leaf("lbin", new ArrowType.LargeBinary()));
    f.add(leaf("utf8view", new ArrowType.Utf8View()));
    f.add(leaf("binview", new ArrowType.BinaryView()));
    f.add(leaf("null", new ArrowType.Null()));
    f.add(new Field("struct", FieldType.nullable(new ArrowType.Struct()),
        List.of(leaf("a", new ArrowType.Int(32, true)), leaf("b", new ArrowType.Utf8()),
            leaf("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))));
    f.add(new Field("list", FieldType.nullable(new ArrowType.List()), List.of(leaf("item", new ArrowType.Int(32, true)))));
    f.add(new Field("llist", FieldType.nullable(new ArrowType.LargeList()),
        List.of(leaf("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))));
    f.add(new Field("fslist", FieldType.nullable(new ArrowType.FixedSizeList(2)),
        List.of(leaf("item", new ArrowType.Utf8()))));
    f.add(new Field("liststruct", FieldType.nullable(new ArrowType.List()),
        List.of(new Field("item", FieldType.nullable(new ArrowType.Struct()),
            List.of(leaf("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                leaf("y", new ArrowType.Utf8View()))))));
    f.add(new Field("map", FieldType.nullable(new ArrowType.Map(false)),
        List.of(new Field("entries", FieldType.notNullable(new ArrowType.Struct()),
            List.of(new Field("key", FieldType.notNullable(new ArrowType.Utf8()), null),
                leaf("value", new ArrowType.Int(64, true)))))));
    return f;
  }

  public static Field leaf(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /** A vector of {@code field}'s type with {@code n} rows; about {@code nullRate} of them null. */
  public static FieldVector create(Field field, BufferAllocator allocator, int n, Random rnd, double nullRate) {
    FieldVector v = field.createVector(allocator);
    fill(v, n, rnd, nullRate);
    return v;
  }

  private static boolean[] nulls(int n, Random rnd, double nullRate, boolean nullable) {
    boolean[] isNull = new boolean[n];
    for (int i = 0; i < n; i++) {
      isNull[i] = nullable && rnd.nextDouble() < nullRate;
    }
    return isNull;
  }

  public static void fill(FieldVector v, int n, Random rnd, double nullRate) {
    boolean[] isNull = nulls(n, rnd, nullRate, v.getField().isNullable());
    if (v instanceof NullVector) {
      ((NullVector) v).setValueCount(n);
    } else if (v instanceof BitVector) {
      BitVector b = (BitVector) v;
      b.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        b.set(i, rnd.nextInt(2));
        if (isNull[i]) {
          b.setNull(i); // clears validity, keeps the value bit as junk under the null
          b.getDataBuffer().setByte(i >>> 3, b.getDataBuffer().getByte(i >>> 3) | (rnd.nextInt(2) << (i & 7)));
        }
      }
      b.setValueCount(n);
    } else if (v instanceof BaseFixedWidthVector) {
      fillFixed((BaseFixedWidthVector) v, n, rnd, isNull);
    } else if (v instanceof VariableWidthFieldVector) {
      VariableWidthFieldVector var = (VariableWidthFieldVector) v;
      // Sized up front: Arrow 18's view setSafe reads past the view buffer when it has to grow it.
      var.setInitialCapacity(Math.max(n, 1));
      var.allocateNew();
      for (int i = 0; i < n; i++) {
        var.setSafe(i, randomString(rnd)); // under a null too: payloads under nulls must be ignored
        if (isNull[i]) {
          var.setNull(i);
        }
      }
      var.setValueCount(n);
    } else if (v instanceof StructVector) {
      StructVector s = (StructVector) v;
      s.setInitialCapacity(Math.max(n, 1));
      s.allocateNew();
      for (FieldVector child : s.getChildrenFromFields()) {
        fill(child, n, rnd, nullRate);
      }
      for (int i = 0; i < n; i++) {
        if (isNull[i]) {
          s.setNull(i);
        } else {
          s.setIndexDefined(i);
        }
      }
      s.setValueCount(n);
    } else if (v instanceof FixedSizeListVector) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      l.setInitialCapacity(Math.max(n, 1));
      l.allocateNew();
      fill(l.getDataVector(), n * l.getListSize(), rnd, nullRate);
      for (int i = 0; i < n; i++) {
        if (isNull[i]) {
          l.setNull(i);
        } else {
          l.setNotNull(i);
        }
      }
      l.setValueCount(n);
    } else if (v instanceof ListVector) {
      ListVector l = (ListVector) v;
      l.setInitialCapacity(Math.max(n, 1));
      l.allocateNew();
      int[] ends = listEnds(n, rnd);
      ArrowBuf offsets = l.getOffsetBuffer();
      for (int i = 0; i < n; i++) {
        offsets.setInt(4L * (i + 1), ends[i]);
        BitVectorHelper.setValidityBit(l.getValidityBuffer(), i, isNull[i] ? 0 : 1);
      }
      fill(l.getDataVector(), n == 0 ? 0 : ends[n - 1], rnd, nullRate);
      l.setLastSet(n - 1);
      l.setValueCount(n);
    } else if (v instanceof LargeListVector) {
      LargeListVector l = (LargeListVector) v;
      l.setInitialCapacity(Math.max(n, 1));
      l.allocateNew();
      int[] ends = listEnds(n, rnd);
      ArrowBuf offsets = l.getOffsetBuffer();
      for (int i = 0; i < n; i++) {
        offsets.setLong(8L * (i + 1), ends[i]);
        BitVectorHelper.setValidityBit(l.getValidityBuffer(), i, isNull[i] ? 0 : 1);
      }
      fill(l.getDataVector(), n == 0 ? 0 : ends[n - 1], rnd, nullRate);
      l.setLastSet(n - 1);
      l.setValueCount(n);
    } else {
      throw new IllegalArgumentException("no generator for " + v.getClass());
    }
  }

  private static int[] listEnds(int n, Random rnd) {
    int[] ends = new int[n];
    int total = 0;
    for (int i = 0; i < n; i++) {
      total += rnd.nextInt(3);
      ends[i] = total;
    }
    return ends;
  }

  static byte[] randomString(Random rnd) {
    return STRING_POOL[rnd.nextInt(STRING_POOL.length)].getBytes(StandardCharsets.UTF_8);
  }

  private static void fillFixed(BaseFixedWidthVector v, int n, Random rnd, boolean[] isNull) {
    v.allocateNew(Math.max(n, 1));
    int width = v.getTypeWidth();
    ArrowBuf data = v.getDataBuffer();
    for (int i = 0; i < n; i++) {
      long at = (long) i * width;
      if (v instanceof Float8Vector) {
        data.setLong(at, DOUBLE_POOL[rnd.nextInt(DOUBLE_POOL.length)]);
      } else if (v instanceof Float4Vector) {
        data.setInt(at, FLOAT_POOL[rnd.nextInt(FLOAT_POOL.length)]);
      } else if (v instanceof Float2Vector) {
        data.setShort(at, HALF_POOL[rnd.nextInt(HALF_POOL.length)]);
      } else {
        // Small little-endian integers: a pool of 4 distinct values per type, valid for every type.
        byte[] bytes = new byte[width];
        bytes[0] = (byte) rnd.nextInt(4);
        if (width > 4 && rnd.nextBoolean()) {
          bytes[width - 1] = 0; // keep decimals/timestamps small and positive
        }
        data.setBytes(at, bytes);
      }
      BitVectorHelper.setValidityBit(v.getValidityBuffer(), i, isNull[i] ? 0 : 1);
    }
    v.setValueCount(n);
  }

  /** A row's value as text, for failure messages. */
  public static String show(FieldVector v, int row) {
    if (v.isNull(row)) {
      return "null";
    }
    Object o = v.getObject(row);
    return o instanceof byte[] ? Arrays.toString((byte[]) o) : String.valueOf(o);
  }
}
