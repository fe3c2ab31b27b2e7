package io.rowmatch.core.testing;

import java.nio.charset.StandardCharsets;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Small literal vectors for hand-written cases. */
public final class TestVectors {
  private TestVectors() {}

  /** A bigint vector "x" of {@code values}. */
  public static BigIntVector longs(BufferAllocator allocator, long... values) {
    BigIntVector v = new BigIntVector("x", allocator);
    v.allocateNew(Math.max(1, values.length));
    for (int i = 0; i < values.length; i++) {
      v.set(i, values[i]);
    }
    v.setValueCount(values.length);
    return v;
  }

  /** An int vector "i" of {@code values}, a null where a value is null. */
  public static IntVector ints(BufferAllocator allocator, Integer... values) {
    IntVector v = new IntVector("i", allocator);
    v.allocateNew(Math.max(1, values.length));
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        v.set(i, values[i]);
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  /** A nullable utf8 vector "s" of {@code values}, a null where a value is null. */
  public static VarCharVector strings(BufferAllocator allocator, String... values) {
    return namedStrings(allocator, "s", FieldType.nullable(ArrowType.Utf8.INSTANCE), values);
  }

  /** A utf8 vector named {@code name} of field type {@code type}, a null where a value is null. */
  public static VarCharVector namedStrings(BufferAllocator allocator, String name, FieldType type, String... values) {
    VarCharVector v = new VarCharVector(name, type, allocator);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    v.setValueCount(values.length);
    return v;
  }
}
