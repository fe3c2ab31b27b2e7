package io.rowmatch.core.compare;

/**
 * A range of struct, list, large list, map or fixed-size list values whose validity is already known
 * equal on both sides. The values of a run of valid parents are contiguous in the children, so each
 * run becomes one range comparison of each child ({@link ArrayRangeEquality}, recursively: the
 * children's validity must match too, and their own runs take the fast paths). Children's slots under
 * null parents are never looked at. List offsets are checked like variable-width offsets, against the
 * child's value count.
 */
final class NestedRunEquality {
  private NestedRunEquality() {}

  static boolean equal(ColumnPair p, int l, int r, int n, long nulls, boolean signedZerosEqual, int requested) {
    if (nulls == 0) {
      return run(p, l, r, n, signedZerosEqual, requested);
    }
    ValidRunReader runs = new ValidRunReader(p.lValidity, l, ColumnLayout.bitmapBytes(p.left.valueCount), n);
    while (runs.next()) {
      if (!run(p, l + runs.start, r + runs.start, runs.length, signedZerosEqual, requested)) {
        return false;
      }
    }
    return true;
  }

  private static boolean run(ColumnPair p, int l, int r, int k, boolean signedZerosEqual, int requested) {
    switch (p.kind) {
      case ColumnKind.STRUCT:
        for (ColumnPair child : p.children) {
          if (!ArrayRangeEquality.equal(child, l, r, k, signedZerosEqual, requested)) {
            return false;
          }
        }
        return true;
      case ColumnKind.LIST32:
      case ColumnKind.LIST64: {
        ColumnPair child = p.children[0];
        long lb;
        long rb;
        long le;
        if (p.kind == ColumnKind.LIST32) {
          if (!OffsetRuns.lengthsEqual32(p.left, p.lOffsets, l, child.left.valueCount, p.right, p.rOffsets, r,
              child.right.valueCount, k)) {
            return false;
          }
          lb = RawMemory.getInt(p.lOffsets + 4L * l);
          le = RawMemory.getInt(p.lOffsets + 4L * (l + k));
          rb = RawMemory.getInt(p.rOffsets + 4L * r);
        } else {
          if (!OffsetRuns.lengthsEqual64(p.left, p.lOffsets, l, child.left.valueCount, p.right, p.rOffsets, r,
              child.right.valueCount, k)) {
            return false;
          }
          lb = RawMemory.getLong(p.lOffsets + 8L * l);
          le = RawMemory.getLong(p.lOffsets + 8L * (l + k));
          rb = RawMemory.getLong(p.rOffsets + 8L * r);
        }
        // Offsets proved within the children's value counts, which are ints.
        return ArrayRangeEquality.equal(child, (int) lb, (int) rb, (int) (le - lb), signedZerosEqual, requested);
      }
      case ColumnKind.FIXED_LIST: {
        long size = p.width;
        return ArrayRangeEquality.equal(p.children[0], (int) (l * size), (int) (r * size), (int) (k * size),
            signedZerosEqual, requested);
      }
      default:
        throw new IllegalStateException("not a nested kind: " + p.kind);
    }
  }
}
