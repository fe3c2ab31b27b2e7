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
    int ls = RawMemory.getInt(lo);
    int le = RawMemory.getInt(lo + 4);
    if (ls < 0 || ls > le || le > p.lDataCapacity) {
      throw p.left.badOffsets(l, ls, le, p.lDataCapacity);
    }
    long ro = p.rOffsets + 4L * r;
    int rs = RawMemory.getInt(ro);
    int re = RawMemory.getInt(ro + 4);
    if (rs < 0 || rs > re || re > p.rDataCapacity) {
      throw p.right.badOffsets(r, rs, re, p.rDataCapacity);
    }
    int len = le - ls;
    return len == re - rs && RawMemory.equalBytes(p.lData + ls, p.rData + rs, len);
  }

  static boolean equal64(ColumnPair p, int l, int r) {
    long lo = p.lOffsets + 8L * l;
    long ls = RawMemory.getLong(lo);
    long le = RawMemory.getLong(lo + 8);
    if (ls < 0 || ls > le || le > p.lDataCapacity) {
      throw p.left.badOffsets(l, ls, le, p.lDataCapacity);
    }
    long ro = p.rOffsets + 8L * r;
    long rs = RawMemory.getLong(ro);
    long re = RawMemory.getLong(ro + 8);
    if (rs < 0 || rs > re || re > p.rDataCapacity) {
      throw p.right.badOffsets(r, rs, re, p.rDataCapacity);
    }
    long len = le - ls;
    return len == re - rs && RawMemory.equalBytes(p.lData + ls, p.rData + rs, len);
  }
}
