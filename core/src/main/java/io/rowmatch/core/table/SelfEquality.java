package io.rowmatch.core.table;

import java.util.List;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Whether a key schema admits values that are not equal to themselves: a top-level null in a column without
 * {@code nullsEqual}, or a NaN (anywhere inside the column) without {@code nansEqual}. Such rows can never
 * match any row, so tables keep them out of their hash index (all of them hash alike and would otherwise form
 * one long probe chain).
 */
final class SelfEquality {
  private SelfEquality() {}

  static boolean mayBeSelfUnequal(List<Field> fields, boolean[] nullsEqual, boolean[] nansEqual) {
    for (int c = 0; c < fields.size(); c++) {
      if (!nullsEqual[c] || (!nansEqual[c] && hasFloat(fields.get(c)))) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasFloat(Field f) {
    if (f.getType() instanceof ArrowType.FloatingPoint) {
      return true;
    }
    for (Field child : f.getChildren()) {
      if (hasFloat(child)) {
        return true;
      }
    }
    return false;
  }
}
