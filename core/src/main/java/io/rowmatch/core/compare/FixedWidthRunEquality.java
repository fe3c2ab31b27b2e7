package io.rowmatch.core.compare;

/**
 * A range of fixed-width values whose validity is already known equal on both sides. Bytes-equal
 * kinds (integers, dates, decimals, fixed-size binary...) compare the whole range in one bulk call when
 * it has no nulls, else one bulk call per valid run (value by value when runs are short). Bits compare
 * 64 at a time under the validity mask. Floats need the per-value rules: bitwise equality is wrong for
 * NaN (unequal to itself unless {@code nansEqual}; any payload equal when it is) and for -0.0 vs 0.0
 * (equal when {@code signedZerosEqual}), so no option pair makes a byte compare exact.
 */
final class FixedWidthRunEquality {
  private FixedWidthRunEquality() {}

  /** Bytes-equal kinds: FIXED1/2/4/8/16, FIXED_BYTES. */
  static boolean bytesEqual(ColumnPair p, int l, int r, int n, int path) {
    int w = p.width;
    if (path == RunPath.SINGLE_RUN) {
      return BulkBytes.equal(p.lData + (long) w * l, p.rData + (long) w * r, (long) w * n);
    }
    if (path == RunPath.SCALAR) {
      long validity = p.lValidity;
      for (int i = 0; i < n; i++) {
        if ((validity == 0 || RawMemory.bit(validity, l + i))
            && !RawMemory.equalBytes(p.lData + (long) w * (l + i), p.rData + (long) w * (r + i), w)) {
          return false;
        }
      }
      return true;
    }
    ValidRunReader runs = new ValidRunReader(p.lValidity, l, ColumnLayout.bitmapBytes(p.left.valueCount), n);
    while (runs.next()) {
      long s = runs.start;
      if (!BulkBytes.equal(p.lData + w * (l + s), p.rData + w * (r + s), (long) w * runs.length)) {
        return false;
      }
    }
    return true;
  }

  /** BitVector values: data bits compared where the (equal) validity says valid. */
  static boolean bitsEqual(ColumnPair p, int l, int r, int n) {
    return BitmapRange.equalWhere(p.lData, l, ColumnLayout.bitmapBytes(p.left.valueCount), p.rData, r,
        ColumnLayout.bitmapBytes(p.right.valueCount), p.lValidity, l,
        ColumnLayout.bitmapBytes(p.left.valueCount), n);
  }

  /** FLOAT16/32/64 by the options' rules, at every valid position. */
  static boolean floatsEqual(ColumnPair p, int l, int r, int n, boolean signedZerosEqual) {
    long validity = p.lValidity;
    boolean nansEqual = p.nansEqual;
    switch (p.kind) {
      case ColumnKind.FLOAT64:
        for (int i = 0; i < n; i++) {
          if ((validity == 0 || RawMemory.bit(validity, l + i))
              && !FloatEquality.equal64(Double.longBitsToDouble(RawMemory.getLong(p.lData + 8L * (l + i))),
                  Double.longBitsToDouble(RawMemory.getLong(p.rData + 8L * (r + i))), nansEqual,
                  signedZerosEqual)) {
            return false;
          }
        }
        return true;
      case ColumnKind.FLOAT32:
        for (int i = 0; i < n; i++) {
          if ((validity == 0 || RawMemory.bit(validity, l + i))
              && !FloatEquality.equal32(Float.intBitsToFloat(RawMemory.getInt(p.lData + 4L * (l + i))),
                  Float.intBitsToFloat(RawMemory.getInt(p.rData + 4L * (r + i))), nansEqual, signedZerosEqual)) {
            return false;
          }
        }
        return true;
      case ColumnKind.FLOAT16:
        for (int i = 0; i < n; i++) {
          if ((validity == 0 || RawMemory.bit(validity, l + i))
              && !FloatEquality.equal16(RawMemory.getShort(p.lData + 2L * (l + i)),
                  RawMemory.getShort(p.rData + 2L * (r + i)), nansEqual, signedZerosEqual)) {
            return false;
          }
        }
        return true;
      default:
        throw new IllegalStateException("not a float kind: " + p.kind);
    }
  }
}
