package io.rowmatch.spark.aggregate;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;

/** Arrow vectors built from Java values (null = a null row) for kernel tests. */
final class TestVectors {
  private TestVectors() {}

  static VarCharVector strings(BufferAllocator a, List<String> values) {
    VarCharVector v = new VarCharVector("s", a);
    v.allocateNew();
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        v.setNull(i);
      } else {
        v.setSafe(i, values.get(i).getBytes(StandardCharsets.UTF_8));
      }
    }
    v.setValueCount(values.size());
    return v;
  }

  static VarBinaryVector binaries(BufferAllocator a, List<byte[]> values) {
    VarBinaryVector v = new VarBinaryVector("b", a);
    v.allocateNew();
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        v.setNull(i);
      } else {
        v.setSafe(i, values.get(i));
      }
    }
    v.setValueCount(values.size());
    return v;
  }

  static BigIntVector longs(BufferAllocator a, List<Long> values) {
    BigIntVector v = new BigIntVector("l", a);
    v.allocateNew(values.size());
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        v.setNull(i);
      } else {
        v.set(i, values.get(i));
      }
    }
    v.setValueCount(values.size());
    return v;
  }

  static BitVector booleans(BufferAllocator a, List<Boolean> values) {
    BitVector v = new BitVector("z", a);
    v.allocateNew(values.size());
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        v.setNull(i);
      } else {
        v.set(i, values.get(i) ? 1 : 0);
      }
    }
    v.setValueCount(values.size());
    return v;
  }

  static DecimalVector decimals(BufferAllocator a, int precision, int scale, List<BigDecimal> values) {
    DecimalVector v = new DecimalVector("d", a, precision, scale);
    v.allocateNew(values.size());
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) == null) {
        v.setNull(i);
      } else {
        v.set(i, values.get(i));
      }
    }
    v.setValueCount(values.size());
    return v;
  }
}
