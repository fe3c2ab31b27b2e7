package io.rowmatch.core.compare;

import org.apache.arrow.vector.ValueVector;

/**
 * Whole-array equality of a range of two columns, as Arrow C++ {@code ArrayEquals}: the validity must
 * match bit for bit (compared 64 positions at a time), payloads under nulls are ignored, and the valid
 * values are compared by the kernel of the column's kind, each choosing its loop by {@link RunPath}.
 * The pair's layouts are already checked (capacities) and the ranges are within both value counts.
 */
public final class ArrayRangeEquality {
  private ArrayRangeEquality() {}

  /**
   * {@link io.rowmatch.core.ArrayEquals#rangeEquals} with the loop pinned ({@link RunPath#SCALAR},
   * {@link RunPath#FORCE_RUNS}) or chosen ({@link RunPath#AUTO}): the entry point, also used by
   * benchmarks and tests that measure or check one path.
   */
  public static boolean equal(ValueVector left, int leftStart, ValueVector right, int rightStart, int length,
      boolean nansEqual, boolean signedZerosEqual, int requestedPath) {
    checkRange("left", leftStart, length, left.getValueCount());
    checkRange("right", rightStart, length, right.getValueCount());
    if (!ColumnKind.sameType(left.getField(), right.getField(), false)) {
      return false;
    }
    ColumnLayout l = ColumnLayout.of(left, "left '" + left.getName() + "'");
    ColumnLayout r = ColumnLayout.of(right, "right '" + right.getName() + "'");
    // Inner nulls of nested values equal inner nulls; the top level's nulls are compared by validity.
    ColumnPair pair = ColumnPair.of(l, r, true, nansEqual);
    return equal(pair, leftStart, rightStart, length, signedZerosEqual, requestedPath);
  }

  private static void checkRange(String side, int start, int length, int count) {
    if (start < 0 || length < 0 || start > count - length) {
      throw new IndexOutOfBoundsException(side + " range [" + start + ", " + ((long) start + length)
          + ") is outside the vector's " + count + " values");
    }
  }

  /**
   * True when the {@code n} values from {@code l} (left) and {@code r} (right) are equal.
   * {@code requestedPath} is {@link RunPath#AUTO} except in tests and benchmarks that pin a path.
   *
   * @throws io.rowmatch.core.MalformedVectorException when a side's offsets or views are out of order or
   *     bounds, unless the ranges were found unequal first
   */
  public static boolean equal(ColumnPair p, int l, int r, int n, boolean signedZerosEqual, int requestedPath) {
    if (n == 0 || p.kind == ColumnKind.NULL) {
      // A NullVector only meets a NullVector here (same type): all null on both sides.
      return p.lAllNull == p.rAllNull || n == 0;
    }
    long ones = validOnBoth(p, l, r, n);
    if (ones < 0) {
      return false;
    }
    if (ones == 0) {
      return true;
    }
    long nulls = n - ones;
    switch (p.kind) {
      case ColumnKind.BIT:
        return FixedWidthRunEquality.bitsEqual(p, l, r, n);
      case ColumnKind.FLOAT16:
      case ColumnKind.FLOAT32:
      case ColumnKind.FLOAT64:
        return FixedWidthRunEquality.floatsEqual(p, l, r, n, signedZerosEqual);
      case ColumnKind.FIXED1:
      case ColumnKind.FIXED2:
      case ColumnKind.FIXED4:
      case ColumnKind.FIXED8:
      case ColumnKind.FIXED16:
      case ColumnKind.FIXED_BYTES:
        return FixedWidthRunEquality.bytesEqual(p, l, r, n, path(p, l, n, nulls, requestedPath));
      case ColumnKind.VAR32:
      case ColumnKind.VAR64:
        return VarWidthRunEquality.equal(p, l, r, n, path(p, l, n, nulls, requestedPath));
      case ColumnKind.VIEW:
        return ViewRunEquality.equal(p, l, r, n, path(p, l, n, nulls, requestedPath));
      case ColumnKind.STRUCT:
      case ColumnKind.LIST32:
      case ColumnKind.LIST64:
      case ColumnKind.FIXED_LIST:
        return NestedRunEquality.equal(p, l, r, n, nulls, signedZerosEqual, requestedPath);
      default:
        throw new IllegalStateException("no range equality for kind " + p.kind + " in " + p.left.name);
    }
  }

  /** -1 when the validity differs anywhere in the ranges, else the number of valid values. */
  private static long validOnBoth(ColumnPair p, int l, int r, int n) {
    long lv = p.lValidity;
    long rv = p.rValidity;
    if (lv == 0 && rv == 0) {
      return n;
    }
    if (lv == 0 || rv == 0) {
      // One side has no bitmap (all valid): the other must be all valid in its range.
      long ones = lv == 0
          ? BitmapRange.countOnes(rv, r, ColumnLayout.bitmapBytes(p.right.valueCount), n)
          : BitmapRange.countOnes(lv, l, ColumnLayout.bitmapBytes(p.left.valueCount), n);
      return ones == n ? n : -1;
    }
    return BitmapRange.equalCountingOnes(lv, l, ColumnLayout.bitmapBytes(p.left.valueCount), rv, r,
        ColumnLayout.bitmapBytes(p.right.valueCount), n);
  }

  private static int path(ColumnPair p, int l, int n, long nulls, int requested) {
    return RunPath.choose(requested, p.lValidity, l, ColumnLayout.bitmapBytes(p.left.valueCount), n, nulls);
  }
}
