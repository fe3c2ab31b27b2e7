package io.rowmatch.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Random Arrow vectors of every {@link SupportedTypes supported type}, drawn from small domains so that
 * equal values (and so equal keys) are common. What it generates on purpose:
 * <ul>
 *   <li>floats: 0.0 and -0.0, NaNs with different payloads (quiet, signalling, negative), infinities;
 *   <li>strings and binaries: empty, multibyte, embedded and trailing NUL, values that concatenate alike
 *       but split differently ("ab","c" / "a","bc"), values around a view's 12-byte inline size and long
 *       ones that share their view prefix;
 *   <li>integer-like fixed-width values (decimals, dates, times, intervals, fixed binaries) centred on
 *       zero, so negatives and, for unsigned types, values near the top of the range appear;
 *   <li>nulls at about {@code nullChance} in every nullable vector, inner ones included, with a value
 *       left under every null slot (random bytes under fixed-width and boolean nulls, a string under
 *       variable-width nulls, children under null structs and fixed-size lists, non-empty child ranges
 *       under null lists).
 * </ul>
 * Vectors are sized up front: Arrow 18's view {@code setSafe} reads past the view buffer when it has to
 * grow it.
 */
public final class RandomVectors {
  /** Doubles as raw bits, ordered so that a small domain still holds both zeros and a NaN. */
  static final long[] DOUBLES = {
      Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(-0.0), 0x7ff8000000000000L,
      Double.doubleToRawLongBits(1.5), 0x7ff8000000000001L, Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY),
      0xfff8000000000000L, 0x7ff0000000000001L, 0xfff0000000000abcL, Double.doubleToRawLongBits(2.5),
      Double.doubleToRawLongBits(Double.POSITIVE_INFINITY), Double.doubleToRawLongBits(-1.0),
      Double.doubleToRawLongBits(1.0)};
  static final int[] FLOATS = {
      Float.floatToRawIntBits(0f), Float.floatToRawIntBits(-0f), 0x7fc00000, Float.floatToRawIntBits(2.25f),
      0x7fc00001, Float.floatToRawIntBits(Float.NEGATIVE_INFINITY), 0xffc00000, 0x7f800001, 0xff800123,
      Float.floatToRawIntBits(2.5f), Float.floatToRawIntBits(Float.POSITIVE_INFINITY), Float.floatToRawIntBits(-1f),
      Float.floatToRawIntBits(1f)};
  static final short[] HALVES = {
      0x0000, (short) 0x8000, 0x7e00, 0x3c00, 0x7c01, (short) 0xfc00, (short) 0xfe03, (short) 0xfe00, 0x4000,
      0x7c00, (short) 0xbc00};
  /** Strings, ordered so that a small domain holds empty, short, out-of-line and multibyte ones. */
  static final String[] STRINGS = {
      "", "a", "a value longer than twelve bytes", "ab", "é", "c", "bc", "twelve bytes", "thirteen byte",
      "a value longer than twelve bytez", "日本語", "abc", "ab\u0000", "\u0000", "abcdefghijkl", "abcdefghijklm",
      "b", "日本", "zz", "eleven byte"};

  private final Random random;
  private final double nullChance;
  private final int intDomain;
  private final int floatDomain;
  private final int stringDomain;

  /**
   * Every leaf draws from {@code domain} distinct values (booleans from two; floats from at most their
   * pool; strings past the pool continue as "s&lt;k&gt;"); lists hold fewer than min(domain, 4) elements.
   */
  public RandomVectors(Random random, double nullChance, int domain) {
    this(random, nullChance, domain, domain, domain);
  }

  private RandomVectors(Random random, double nullChance, int intDomain, int floatDomain, int stringDomain) {
    if (intDomain < 1 || floatDomain < 1 || stringDomain < 1) {
      throw new IllegalArgumentException("domains must be positive");
    }
    this.random = random;
    this.nullChance = nullChance;
    this.intDomain = intDomain;
    this.floatDomain = floatDomain;
    this.stringDomain = stringDomain;
  }

  /** Whole pools: every float and string of the pools, four integer-like values, lists of up to 3 elements. */
  public static RandomVectors pools(Random random, double nullChance) {
    return new RandomVectors(random, nullChance, 4, Integer.MAX_VALUE, STRINGS.length);
  }

  /** A vector of {@code field}'s type with {@code rows} rows. */
  public FieldVector create(Field field, int rows, BufferAllocator allocator) {
    FieldVector v = field.createVector(allocator);
    try {
      fill(v, rows);
    } catch (RuntimeException | Error e) {
      v.close();
      throw e;
    }
    return v;
  }

  private boolean[] nulls(int n, boolean nullable) {
    boolean[] isNull = new boolean[n];
    for (int i = 0; i < n; i++) {
      isNull[i] = nullable && random.nextDouble() < nullChance;
    }
    return isNull;
  }

  private void fill(FieldVector v, int n) {
    boolean[] isNull = nulls(n, v.getField().isNullable());
    int capacity = Math.max(n, 1);
    if (v instanceof NullVector) {
      ((NullVector) v).setValueCount(n);
    } else if (v instanceof BitVector) {
      BitVector b = (BitVector) v;
      b.allocateNew(capacity);
      for (int i = 0; i < n; i++) {
        b.set(i, random.nextInt(Math.min(intDomain, 2)));
        if (isNull[i]) {
          b.setNull(i); // clears validity only; then a random value bit under the null
          b.getDataBuffer().setByte(i >>> 3, b.getDataBuffer().getByte(i >>> 3) | (random.nextInt(2) << (i & 7)));
        }
      }
      b.setValueCount(n);
    } else if (v instanceof BaseFixedWidthVector) {
      fillFixed((BaseFixedWidthVector) v, n, isNull);
    } else if (v instanceof VariableWidthFieldVector) {
      VariableWidthFieldVector var = (VariableWidthFieldVector) v;
      var.setInitialCapacity(capacity);
      var.allocateNew();
      for (int i = 0; i < n; i++) {
        var.setSafe(i, string()); // under a null too: payloads under nulls must be ignored
        if (isNull[i]) {
          var.setNull(i);
        }
      }
      var.setValueCount(n);
    } else if (v instanceof StructVector) {
      StructVector s = (StructVector) v;
      s.setInitialCapacity(capacity);
      s.allocateNew();
      for (FieldVector child : s.getChildrenFromFields()) {
        fill(child, n);
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
      l.setInitialCapacity(capacity);
      l.allocateNew();
      fill(l.getDataVector(), n * l.getListSize());
      for (int i = 0; i < n; i++) {
        if (isNull[i]) {
          l.setNull(i);
        } else {
          l.setNotNull(i);
        }
      }
      l.setValueCount(n);
    } else if (v instanceof ListVector) { // map vectors too
      ListVector l = (ListVector) v;
      l.setInitialCapacity(capacity);
      l.allocateNew();
      int[] ends = listEnds(n);
      for (int i = 0; i < n; i++) {
        l.getOffsetBuffer().setInt(4L * (i + 1), ends[i]);
        BitVectorHelper.setValidityBit(l.getValidityBuffer(), i, isNull[i] ? 0 : 1);
      }
      fill(l.getDataVector(), n == 0 ? 0 : ends[n - 1]);
      l.setLastSet(n - 1);
      l.setValueCount(n);
    } else if (v instanceof LargeListVector) {
      LargeListVector l = (LargeListVector) v;
      l.setInitialCapacity(capacity);
      l.allocateNew();
      int[] ends = listEnds(n);
      for (int i = 0; i < n; i++) {
        l.getOffsetBuffer().setLong(8L * (i + 1), ends[i]);
        BitVectorHelper.setValidityBit(l.getValidityBuffer(), i, isNull[i] ? 0 : 1);
      }
      fill(l.getDataVector(), n == 0 ? 0 : ends[n - 1]);
      l.setLastSet(n - 1);
      l.setValueCount(n);
    } else {
      throw new IllegalArgumentException("no generator for " + v.getClass());
    }
  }

  /** Cumulative list ends; a null list keeps its random length, so child values sit under it. */
  private int[] listEnds(int n) {
    int[] ends = new int[n];
    int total = 0;
    for (int i = 0; i < n; i++) {
      total += random.nextInt(Math.min(intDomain, 4));
      ends[i] = total;
    }
    return ends;
  }

  private byte[] string() {
    int k = random.nextInt(stringDomain);
    return (k < STRINGS.length ? STRINGS[k] : "s" + k).getBytes(StandardCharsets.UTF_8);
  }

  private int poolIndex(int poolLength) {
    return random.nextInt(Math.min(floatDomain, poolLength));
  }

  private void fillFixed(BaseFixedWidthVector v, int n, boolean[] isNull) {
    v.allocateNew(Math.max(n, 1));
    int width = v.getTypeWidth();
    ArrowBuf data = v.getDataBuffer();
    for (int i = 0; i < n; i++) {
      long at = (long) i * width;
      if (v instanceof Float8Vector) {
        data.setLong(at, DOUBLES[poolIndex(DOUBLES.length)]);
      } else if (v instanceof Float4Vector) {
        data.setInt(at, FLOATS[poolIndex(FLOATS.length)]);
      } else if (v instanceof Float2Vector) {
        data.setShort(at, HALVES[poolIndex(HALVES.length)]);
      } else {
        // Integers, decimals, dates, times, durations, intervals, fixed binaries: a small integer,
        // little-endian two's complement over the whole width (a valid value of every such type).
        long value = random.nextInt(intDomain) - intDomain / 2;
        for (int b = 0; b < width; b++) {
          data.setByte(at + b, b < 8 ? (byte) (value >> (8 * b)) : (byte) (value < 0 ? -1 : 0));
        }
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
