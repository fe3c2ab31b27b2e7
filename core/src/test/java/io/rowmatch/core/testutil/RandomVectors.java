package io.rowmatch.core.testutil;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Random vectors with small value domains (so keys repeat), nulls, every NaN payload, -0.0, empty and
 * multibyte strings, strings longer than a view's inline 12 bytes, and nested values with inner nulls.
 */
public final class RandomVectors {
  private final Random random;
  private final double nullChance;
  private final int domain;

  public RandomVectors(Random random, double nullChance, int domain) {
    this.random = random;
    this.nullChance = nullChance;
    this.domain = domain;
  }

  private static final short[] HALFS = {0x0000, (short) 0x8000, 0x3c00, 0x4000, 0x7e00, 0x7c01, (short) 0xfe00,
      0x7c00, (short) 0xbc00};
  private static final float[] FLOATS = {0f, -0f, 1f, 2.5f, Float.NaN, Float.intBitsToFloat(0x7fc00001),
      Float.intBitsToFloat(0xffc00000), Float.intBitsToFloat(0x7f800001), Float.POSITIVE_INFINITY, -1f};
  private static final double[] DOUBLES = {0d, -0d, 1d, 2.5d, Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L),
      Double.longBitsToDouble(0xfff8000000000000L), Double.longBitsToDouble(0x7ff0000000000001L),
      Double.NEGATIVE_INFINITY, -1d};
  private static final String[] STRINGS = {"", "a", "b", "ab", "é", "日本", "abcdefghijkl", "abcdefghijklm",
      "a longer string that is not inline", "a longer string that is not inlinf", "\u0000", "zz"};

  public FieldVector create(Field field, int rows, BufferAllocator allocator) {
    FieldVector v = field.createVector(allocator);
    v.allocateNew();
    for (int i = 0; i < rows; i++) {
      write(v, i);
    }
    v.setValueCount(rows);
    return v;
  }

  private boolean isNull() {
    return random.nextDouble() < nullChance;
  }

  private int pick() {
    return random.nextInt(domain);
  }

  /** Writes a random value (or a null) at index {@code i}, children included. */
  public void write(FieldVector v, int i) {
    if (v instanceof NullVector) {
      return;
    }
    boolean isNull = v.getField().isNullable() && isNull();
    if (v instanceof StructVector) {
      StructVector s = (StructVector) v;
      for (FieldVector child : s.getChildrenFromFields()) {
        write(child, i);
      }
      if (isNull) {
        s.setNull(i);
      } else {
        s.setIndexDefined(i);
      }
      return;
    }
    if (v instanceof ListVector) {
      ListVector l = (ListVector) v;
      int n = isNull ? 0 : random.nextInt(Math.min(domain, 4));
      int start = l.startNewValue(i);
      for (int k = 0; k < n; k++) {
        write(l.getDataVector(), start + k);
      }
      l.endValue(i, n);
      if (isNull) {
        BitVectorHelper.unsetBit(l.getValidityBuffer(), i);
      }
      return;
    }
    if (v instanceof LargeListVector) {
      LargeListVector l = (LargeListVector) v;
      int n = isNull ? 0 : random.nextInt(Math.min(domain, 4));
      long start = l.startNewValue(i);
      for (int k = 0; k < n; k++) {
        write(l.getDataVector(), (int) start + k);
      }
      l.endValue(i, n);
      if (isNull) {
        BitVectorHelper.unsetBit(l.getValidityBuffer(), i);
      }
      return;
    }
    if (v instanceof FixedSizeListVector) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      int size = l.getListSize();
      if (isNull) {
        l.setNull(i);
      } else {
        l.setNotNull(i);
      }
      for (int k = 0; k < size; k++) {
        write(l.getDataVector(), i * size + k);
      }
      return;
    }
    if (isNull) {
      setNull(v, i);
      return;
    }
    writeLeaf(v, i);
  }

  private static void setNull(FieldVector v, int i) {
    if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector) {
      ((org.apache.arrow.vector.BaseFixedWidthVector) v).setNull(i);
    } else if (v instanceof BaseVariableWidthVector) {
      ((BaseVariableWidthVector) v).setNull(i);
    } else if (v instanceof BaseLargeVariableWidthVector) {
      ((BaseLargeVariableWidthVector) v).setNull(i);
    } else if (v instanceof BaseVariableWidthViewVector) {
      ((BaseVariableWidthViewVector) v).setNull(i);
    } else {
      throw new IllegalArgumentException("no setNull for " + v.getClass());
    }
  }

  private void writeLeaf(FieldVector v, int i) {
    if (v instanceof IntVector) {
      ((IntVector) v).setSafe(i, pick());
    } else if (v instanceof BigIntVector) {
      ((BigIntVector) v).setSafe(i, pick() - domain / 2);
    } else if (v instanceof SmallIntVector) {
      ((SmallIntVector) v).setSafe(i, pick());
    } else if (v instanceof TinyIntVector) {
      ((TinyIntVector) v).setSafe(i, pick());
    } else if (v instanceof BitVector) {
      ((BitVector) v).setSafe(i, random.nextInt(2));
    } else if (v instanceof Float2Vector) {
      ((Float2Vector) v).setSafe(i, HALFS[random.nextInt(Math.min(domain, HALFS.length))]);
    } else if (v instanceof Float4Vector) {
      ((Float4Vector) v).setSafe(i, FLOATS[random.nextInt(Math.min(domain, FLOATS.length))]);
    } else if (v instanceof Float8Vector) {
      ((Float8Vector) v).setSafe(i, DOUBLES[random.nextInt(Math.min(domain, DOUBLES.length))]);
    } else if (v instanceof DecimalVector) {
      ((DecimalVector) v).setSafe(i, BigDecimal.valueOf(pick() - domain / 2, 2));
    } else if (v instanceof FixedSizeBinaryVector) {
      int x = pick();
      ((FixedSizeBinaryVector) v).setSafe(i, new byte[] {(byte) x, (byte) (x >> 8), 7});
    } else if (v instanceof BaseVariableWidthVector) {
      ((BaseVariableWidthVector) v).setSafe(i, string());
    } else if (v instanceof BaseLargeVariableWidthVector) {
      ((BaseLargeVariableWidthVector) v).setSafe(i, string());
    } else if (v instanceof BaseVariableWidthViewVector) {
      ((BaseVariableWidthViewVector) v).setSafe(i, string());
    } else {
      throw new IllegalArgumentException("no random values for " + v.getClass());
    }
  }

  private byte[] string() {
    int k = pick();
    String s = k < STRINGS.length ? STRINGS[k] : "s" + k;
    return s.getBytes(StandardCharsets.UTF_8);
  }

}
