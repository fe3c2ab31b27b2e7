package io.rowmatch.core.compare;

/**
 * Struct, list, large list, fixed-size list and map values: element by element with the same rules,
 * where inner nulls equal inner nulls (the children pairs carry {@code nullsEqual = true}). List
 * offsets are checked against the child's value count before any element is read.
 */
public final class NestedEquality {
  private NestedEquality() {}

  static boolean structEqual(ColumnPair p, int l, int r) {
    for (ColumnPair child : p.children) {
      if (!PairEquality.equal(child, l, r)) {
        return false;
      }
    }
    return true;
  }

  static boolean listEqual(ColumnPair p, int l, int r) {
    long ls;
    long le;
    long rs;
    long re;
    if (p.kind == ColumnKind.LIST32) {
      ls = RawMemory.getInt(p.lOffsets + 4L * l);
      le = RawMemory.getInt(p.lOffsets + 4L * l + 4);
      rs = RawMemory.getInt(p.rOffsets + 4L * r);
      re = RawMemory.getInt(p.rOffsets + 4L * r + 4);
    } else {
      ls = RawMemory.getLong(p.lOffsets + 8L * l);
      le = RawMemory.getLong(p.lOffsets + 8L * l + 8);
      rs = RawMemory.getLong(p.rOffsets + 8L * r);
      re = RawMemory.getLong(p.rOffsets + 8L * r + 8);
    }
    ColumnPair child = p.children[0];
    int lLimit = child.left.valueCount;
    int rLimit = child.right.valueCount;
    if (ls < 0 || ls > le || le > lLimit) {
      throw p.left.badOffsets(l, ls, le, lLimit);
    }
    if (rs < 0 || rs > re || re > rLimit) {
      throw p.right.badOffsets(r, rs, re, rLimit);
    }
    if (le - ls != re - rs) {
      return false;
    }
    return elementsEqual(child, (int) ls, (int) rs, (int) (le - ls));
  }

  static boolean fixedListEqual(ColumnPair p, int l, int r) {
    int size = p.width;
    return elementsEqual(p.children[0], l * size, r * size, size);
  }

  private static boolean elementsEqual(ColumnPair child, int lStart, int rStart, int count) {
    for (int i = 0; i < count; i++) {
      if (!PairEquality.equal(child, lStart + i, rStart + i)) {
        return false;
      }
    }
    return true;
  }
}
