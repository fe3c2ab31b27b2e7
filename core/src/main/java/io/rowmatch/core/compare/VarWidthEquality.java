package io.rowmatch.core.compare;

/**
 * One value of VarChar/VarBinary (32-bit offsets) or their Large forms (64-bit offsets). Each value's
 * offsets are checked ({@code 0 <= start <= end <= data capacity}) before a byte is read, so a
 * malformed vector raises {@link io.rowmatch.core.MalformedVectorException} instead of reading outside
 * its buffer.
 */
public final class VarWidthEquality {
  private VarWidthEquality() {}

  static boolean equal32(ColumnPair p, int l, int r) {
    long lo = p.lOffsets + 4L * l;
    long ls = RawMemory.getInt(lo);
    long le = RawMemory.getInt(lo + 4);
    long ro = p.rOffsets + 4L * r;
    long rs = RawMemory.getInt(ro);
    long re = RawMemory.getInt(ro + 4);
    checkOffsets(p, l, ls, le, r, rs, re);
    long len = le - ls;
    return len == re - rs && RawMemory.equalBytes(p.lData + ls, p.rData + rs, len);
  }

  static boolean equal64(ColumnPair p, int l, int r) {
    long lo = p.lOffsets + 8L * l;
    long ls = RawMemory.getLong(lo);
    long le = RawMemory.getLong(lo + 8);
    long ro = p.rOffsets + 8L * r;
    long rs = RawMemory.getLong(ro);
    long re = RawMemory.getLong(ro + 8);
    checkOffsets(p, l, ls, le, r, rs, re);
    long len = le - ls;
    return len == re - rs && RawMemory.equalBytes(p.lData + ls, p.rData + rs, len);
  }

  /**
   * Both sides' {@code 0 <= start <= end <= capacity}, as one test of sign bits: a negative start or end,
   * a decreasing pair or an end past the data makes one of the terms negative (with both offsets
   * non-negative no difference overflows). One predictable branch instead of six keeps a probe's loads
   * flowing.
   */
  private static void checkOffsets(ColumnPair p, int l, long ls, long le, int r, long rs, long re) {
    long lBad = ls | le | (le - ls) | (p.lDataCapacity - le);
    long rBad = rs | re | (re - rs) | (p.rDataCapacity - re);
    if ((lBad | rBad) < 0) {
      throw lBad < 0 ? p.left.badOffsets(l, ls, le, p.lDataCapacity) : p.right.badOffsets(r, rs, re, p.rDataCapacity);
    }
  }
}
