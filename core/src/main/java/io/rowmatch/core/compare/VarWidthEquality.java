package io.rowmatch.core.compare;

import java.nio.ByteOrder;

/**
 * One value of VarChar/VarBinary (32-bit offsets) or their Large forms (64-bit offsets). Each value's
 * offsets are checked ({@code 0 <= start <= end <= data capacity}) before a byte is read, so a
 * malformed vector raises {@link io.rowmatch.core.MalformedVectorException} instead of reading outside
 * its buffer.
 */
public final class VarWidthEquality {
  private VarWidthEquality() {}

  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  static boolean equal32(ColumnPair p, int l, int r) {
    // A value's start and end offsets in one 8-byte read per side (entries l and l + 1, both inside the
    // offsets buffer: build checked it holds valueCount + 1 of them): fewer loads in a probe's window.
    long lw = RawMemory.getLong(p.lOffsets + 4L * l);
    long rw = RawMemory.getLong(p.rOffsets + 4L * r);
    long ls = startOf(lw);
    long le = endOf(lw);
    long rs = startOf(rw);
    long re = endOf(rw);
    checkOffsets(p, l, ls, le, r, rs, re);
    long len = le - ls;
    return len == re - rs && RawMemory.equalBytes(p.lData + ls, p.rData + rs, len);
  }

  /** The first of two 4-byte offsets read as one 8-byte word in native byte order. */
  private static int startOf(long twoOffsets) {
    return LITTLE_ENDIAN ? (int) twoOffsets : (int) (twoOffsets >>> 32);
  }

  private static int endOf(long twoOffsets) {
    return LITTLE_ENDIAN ? (int) (twoOffsets >>> 32) : (int) twoOffsets;
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
