package io.rowmatch.core.compare;

/**
 * One value of ViewVarChar/ViewVarBinary. A view entry is 16 bytes: the length, then either the value
 * itself (length <= 12) or a 4-byte prefix, a data-buffer index and an offset. Lengths and prefixes are
 * compared before any referenced bytes; every reference is checked against its buffer first.
 */
public final class ViewEquality {
  private ViewEquality() {}

  static boolean equal(ColumnPair p, int l, int r) {
    long lv = p.lOffsets + (long) ColumnLayout.VIEW_SIZE * l;
    long rv = p.rOffsets + (long) ColumnLayout.VIEW_SIZE * r;
    int len = RawMemory.getInt(lv);
    if (len < 0) {
      throw ColumnLayout.malformed(p.left.name, "view of row " + l + " has negative length " + len);
    }
    int rlen = RawMemory.getInt(rv);
    if (rlen < 0) {
      throw ColumnLayout.malformed(p.right.name, "view of row " + r + " has negative length " + rlen);
    }
    if (len != rlen) {
      return false;
    }
    if (len <= ColumnLayout.VIEW_INLINE) {
      return RawMemory.equalBytes(lv + 4, rv + 4, len);
    }
    if (RawMemory.getInt(lv + 4) != RawMemory.getInt(rv + 4)) {
      return false;
    }
    return RawMemory.equalBytes(valueAddress(p.left, lv, l, len), valueAddress(p.right, rv, r, len), len);
  }

  /** Address of the referenced bytes of an out-of-line view, checked against the buffer it names. */
  public static long valueAddress(ColumnLayout side, long view, int row, int len) {
    int buffer = RawMemory.getInt(view + 8);
    int offset = RawMemory.getInt(view + 12);
    if (buffer < 0 || buffer >= side.viewBuffers.length || offset < 0
        || (long) offset + len > side.viewBufferCapacities[buffer]) {
      throw ColumnLayout.malformed(side.name, "view of row " + row + " points at buffer " + buffer + " bytes ["
          + offset + ", " + ((long) offset + len) + "), outside the " + side.viewBuffers.length
          + " data buffers it has");
    }
    return side.viewBuffers[buffer] + offset;
  }
}
