package io.rowmatch.core.compare;

/**
 * A range of ViewVarChar/ViewVarBinary values whose validity is already known equal on both sides.
 * Views of equal values can sit in different buffers at different offsets, so there is no bulk
 * payload; instead each run is walked twice: first every value's length and first four bytes (in the
 * 16-byte entries, no data buffer touched), then the rest: inline bytes, or the referenced bytes,
 * each reference checked against the buffer it names before it is read.
 */
final class ViewRunEquality {
  private ViewRunEquality() {}

  static boolean equal(ColumnPair p, int l, int r, int n, int path) {
    if (path == RunPath.SCALAR) {
      long validity = p.lValidity;
      for (int i = 0; i < n; i++) {
        if ((validity == 0 || RawMemory.bit(validity, l + i)) && !ViewEquality.equal(p, l + i, r + i)) {
          return false;
        }
      }
      return true;
    }
    if (path == RunPath.SINGLE_RUN) {
      return run(p, l, r, n);
    }
    ValidRunReader runs = new ValidRunReader(p.lValidity, l, ColumnLayout.bitmapBytes(p.left.valueCount), n);
    while (runs.next()) {
      if (!run(p, l + runs.start, r + runs.start, runs.length)) {
        return false;
      }
    }
    return true;
  }

  private static boolean run(ColumnPair p, int l, int r, int k) {
    long lv = p.lOffsets + (long) ColumnLayout.VIEW_SIZE * l;
    long rv = p.rOffsets + (long) ColumnLayout.VIEW_SIZE * r;
    for (int i = 0; i < k; i++) {
      long a = lv + (long) ColumnLayout.VIEW_SIZE * i;
      long b = rv + (long) ColumnLayout.VIEW_SIZE * i;
      int len = RawMemory.getInt(a);
      if (len != RawMemory.getInt(b)) {
        checkLength(p.left, len, l + i);
        checkLength(p.right, RawMemory.getInt(b), r + i);
        return false;
      }
      checkLength(p.left, len, l + i);
      // The prefix (or the inline value's start): only the value's own bytes, padding may differ.
      if (len >= 4 ? RawMemory.getInt(a + 4) != RawMemory.getInt(b + 4) : !RawMemory.equalBytes(a + 4, b + 4, len)) {
        return false;
      }
    }
    for (int i = 0; i < k; i++) {
      long a = lv + (long) ColumnLayout.VIEW_SIZE * i;
      long b = rv + (long) ColumnLayout.VIEW_SIZE * i;
      int len = RawMemory.getInt(a);
      if (len <= 4) {
        continue;
      }
      if (len <= ColumnLayout.VIEW_INLINE) {
        if (!RawMemory.equalBytes(a + 8, b + 8, len - 4)) {
          return false;
        }
      } else if (!RawMemory.equalBytes(ViewEquality.valueAddress(p.left, a, l + i, len),
          ViewEquality.valueAddress(p.right, b, r + i, len), len)) {
        return false;
      }
    }
    return true;
  }

  private static void checkLength(ColumnLayout side, int len, int row) {
    if (len < 0) {
      throw ColumnLayout.malformed(side.name, "view of row " + row + " has negative length " + len);
    }
  }
}
