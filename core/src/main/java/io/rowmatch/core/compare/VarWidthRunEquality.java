package io.rowmatch.core.compare;

/**
 * A range of VarChar/VarBinary (32-bit offsets) or LargeVarChar/LargeVarBinary (64-bit offsets)
 * values whose validity is already known equal on both sides. Run paths check a run's offsets
 * ({@link OffsetRuns}) and then compare its whole payload in one bulk call; the scalar path compares
 * value by value ({@link VarWidthEquality}), which wins for short or fragmented ranges.
 */
final class VarWidthRunEquality {
  private VarWidthRunEquality() {}

  static boolean equal(ColumnPair p, int l, int r, int n, int path) {
    boolean wide = p.kind == ColumnKind.VAR64;
    if (path == RunPath.SCALAR) {
      long validity = p.lValidity;
      for (int i = 0; i < n; i++) {
        if (validity == 0 || RawMemory.bit(validity, l + i)) {
          if (!(wide ? VarWidthEquality.equal64(p, l + i, r + i) : VarWidthEquality.equal32(p, l + i, r + i))) {
            return false;
          }
        }
      }
      return true;
    }
    if (path == RunPath.SINGLE_RUN) {
      return wide ? run64(p, l, r, n) : run32(p, l, r, n);
    }
    ValidRunReader runs = new ValidRunReader(p.lValidity, l, ColumnLayout.bitmapBytes(p.left.valueCount), n);
    while (runs.next()) {
      int s = runs.start;
      if (!(wide ? run64(p, l + s, r + s, runs.length) : run32(p, l + s, r + s, runs.length))) {
        return false;
      }
    }
    return true;
  }

  private static boolean run32(ColumnPair p, int l, int r, int k) {
    if (!OffsetRuns.lengthsEqual32(p.left, p.lOffsets, l, p.lDataCapacity, p.right, p.rOffsets, r,
        p.rDataCapacity, k)) {
      return false;
    }
    long lb = RawMemory.getInt(p.lOffsets + 4L * l);
    long rb = RawMemory.getInt(p.rOffsets + 4L * r);
    long bytes = RawMemory.getInt(p.lOffsets + 4L * (l + k)) - lb;
    return BulkBytes.equal(p.lData + lb, p.rData + rb, bytes);
  }

  private static boolean run64(ColumnPair p, int l, int r, int k) {
    if (!OffsetRuns.lengthsEqual64(p.left, p.lOffsets, l, p.lDataCapacity, p.right, p.rOffsets, r,
        p.rDataCapacity, k)) {
      return false;
    }
    long lb = RawMemory.getLong(p.lOffsets + 8L * l);
    long rb = RawMemory.getLong(p.rOffsets + 8L * r);
    long bytes = RawMemory.getLong(p.lOffsets + 8L * (l + k)) - lb;
    return BulkBytes.equal(p.lData + lb, p.rData + rb, bytes);
  }
}
