package io.rowmatch.core.table;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * Copies chosen rows of one batch column to the end of a stored key column of the same type.
 */
final class KeyAppend {
  private KeyAppend() {}

  static void append(FieldVector dst, int base, ValueVector src, int[] rows, int count) {
    for (int k = 0; k < count; k++) {
      dst.copyFromSafe(rows[k], base + k, src);
    }
  }
}
