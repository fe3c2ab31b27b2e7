package io.rowmatch.bench.core;

import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Vectors for the ArrayEquals benchmarks: 32-byte values, a null pattern, and an optional change. */
final class ArrayEqualsData {
  private ArrayEqualsData() {}

  static final int VALUE_BYTES = 32;

  static ArrowType type(String name) {
    switch (name) {
      case "VarChar": return ArrowType.Utf8.INSTANCE;
      case "VarBinary": return ArrowType.Binary.INSTANCE;
      case "LargeVarChar": return ArrowType.LargeUtf8.INSTANCE;
      case "LargeVarBinary": return ArrowType.LargeBinary.INSTANCE;
      default: throw new IllegalArgumentException(name);
    }
  }

  /** Which rows are null: "none", "10%" (random, seeded), "alternating". */
  static boolean[] nulls(String pattern, int n) {
    boolean[] nulls = new boolean[n];
    Random rnd = new Random(42);
    for (int i = 0; i < n; i++) {
      nulls[i] = pattern.equals("10%") ? rnd.nextInt(10) == 0 : pattern.equals("alternating") && (i & 1) == 1;
    }
    return nulls;
  }

  /** Row i's 32 bytes (printable, distinct per row). */
  static byte[] value(int i) {
    byte[] b = new byte[VALUE_BYTES];
    Random rnd = new Random(i * 2654435761L);
    for (int k = 0; k < b.length; k++) {
      b[k] = (byte) ('a' + rnd.nextInt(26));
    }
    return b;
  }

  /**
   * Builds a vector; {@code change} is "none", "lastByte" (the last value's last byte differs) or
   * "lastLonger" (the last value has one more byte).
   */
  static FieldVector build(BufferAllocator allocator, String type, int n, boolean[] nulls, String change) {
    FieldVector v = new Field("v", FieldType.nullable(type(type)), null).createVector(allocator);
    v.allocateNew();
    for (int i = 0; i < n; i++) {
      if (nulls[i]) {
        continue;
      }
      byte[] b = value(i);
      if (i == n - 1 && change.equals("lastByte")) {
        b[b.length - 1] ^= 1;
      } else if (i == n - 1 && change.equals("lastLonger")) {
        b = java.util.Arrays.copyOf(b, b.length + 1);
      }
      if (v instanceof BaseVariableWidthVector) {
        ((BaseVariableWidthVector) v).setSafe(i, b);
      } else {
        ((BaseLargeVariableWidthVector) v).setSafe(i, b);
      }
    }
    for (int i = 0; i < n; i++) {
      if (nulls[i]) {
        if (v instanceof BaseVariableWidthVector) {
          ((BaseVariableWidthVector) v).setNull(i);
        } else {
          ((BaseLargeVariableWidthVector) v).setNull(i);
        }
      }
    }
    v.setValueCount(n);
    return v;
  }

  /** Bytes of payload the vector's values span. */
  static long payloadBytes(FieldVector v) {
    int n = v.getValueCount();
    if (v instanceof BaseVariableWidthVector) {
      return ((BaseVariableWidthVector) v).getOffsetBuffer().getInt(4L * n);
    }
    return ((BaseLargeVariableWidthVector) v).getOffsetBuffer().getLong(8L * n);
  }
}
