package io.rowmatch.core.table;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.testing.SupportedTypes;

/** The supported types whose key columns take the integral fast paths (4- or 8-byte, compared as bits). */
final class IntegralKeyTypes {
  private IntegralKeyTypes() {}

  static List<Field> all(BufferAllocator allocator) {
    List<Field> fixed = new ArrayList<>();
    for (Field f : SupportedTypes.all()) {
      try (FieldVector v = f.createVector(allocator)) {
        if (FixedKeyLookup.isFixed(ColumnKind.of(v, "k"))) {
          fixed.add(f);
        }
      }
    }
    return fixed;
  }
}
