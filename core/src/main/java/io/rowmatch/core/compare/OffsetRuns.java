package io.rowmatch.core.compare;

/**
 * The offsets of a run of consecutive values on both sides (variable-width bytes or list elements):
 * each side's offsets must stay in {@code [0, limit]} and never decrease, and every value's length
 * (offset delta) must match, so "ab","c" never equals "a","bc". Checking the run's two end offsets
 * against the limit and every step for monotony proves each value in bounds, so the caller may then
 * read the run's whole payload {@code [offsets[first], offsets[first + k])} in one go.
 */
final class OffsetRuns {
  private OffsetRuns() {}

  /**
   * 32-bit offsets of {@code k >= 1} values from row {@code l} (left) and {@code r} (right): true when
   * every length matches. A malformed side raises {@link io.rowmatch.core.MalformedVectorException}
   * naming its first bad row, unless a length difference was found first.
   */
  static boolean lengthsEqual32(ColumnLayout left, long lOffsets, int l, long lLimit, ColumnLayout right,
      long rOffsets, int r, long rLimit, int k) {
    long la = lOffsets + 4L * l;
    long ra = rOffsets + 4L * r;
    long lb = RawMemory.getInt(la);
    long le = RawMemory.getInt(la + 4L * k);
    long rb = RawMemory.getInt(ra);
    long re = RawMemory.getInt(ra + 4L * k);
    if (lb < 0 || lb > le || le > lLimit) {
      throw firstBad32(left, la, l, k, lLimit);
    }
    if (rb < 0 || rb > re || re > rLimit) {
      throw firstBad32(right, ra, r, k, rLimit);
    }
    if (le - lb != re - rb) {
      return false;
    }
    boolean decreasing = false;
    if (lb == rb) {
      // Same start, same lengths means identical offsets: one bulk compare, then one side's order.
      if (!BulkBytes.equal(la + 4, ra + 4, 4L * (k - 1))) {
        return false;
      }
      long prev = lb;
      for (int i = 1; i <= k; i++) {
        long a = RawMemory.getInt(la + 4L * i);
        decreasing |= a < prev;
        prev = a;
      }
    } else {
      long prev = lb;
      for (int i = 1; i < k; i++) {
        long a = RawMemory.getInt(la + 4L * i);
        if (a - lb != RawMemory.getInt(ra + 4L * i) - rb) {
          return false;
        }
        decreasing |= a < prev;
        prev = a;
      }
      decreasing |= le < prev;
    }
    if (decreasing) {
      // Equal deltas: both sides decrease at the same row; report the left one.
      throw firstBad32(left, la, l, k, lLimit);
    }
    return true;
  }

  /** As {@link #lengthsEqual32} for 64-bit offsets. */
  static boolean lengthsEqual64(ColumnLayout left, long lOffsets, int l, long lLimit, ColumnLayout right,
      long rOffsets, int r, long rLimit, int k) {
    long la = lOffsets + 8L * l;
    long ra = rOffsets + 8L * r;
    long lb = RawMemory.getLong(la);
    long le = RawMemory.getLong(la + 8L * k);
    long rb = RawMemory.getLong(ra);
    long re = RawMemory.getLong(ra + 8L * k);
    if (lb < 0 || lb > le || le > lLimit) {
      throw firstBad64(left, la, l, k, lLimit);
    }
    if (rb < 0 || rb > re || re > rLimit) {
      throw firstBad64(right, ra, r, k, rLimit);
    }
    if (le - lb != re - rb) {
      return false;
    }
    boolean decreasing = false;
    if (lb == rb) {
      if (!BulkBytes.equal(la + 8, ra + 8, 8L * (k - 1))) {
        return false;
      }
      long prev = lb;
      for (int i = 1; i <= k; i++) {
        long a = RawMemory.getLong(la + 8L * i);
        decreasing |= a < prev;
        prev = a;
      }
    } else {
      long prev = lb;
      for (int i = 1; i < k; i++) {
        long a = RawMemory.getLong(la + 8L * i);
        // Every a here lies in [lb, le] or the run decreases somewhere: no overflow matters.
        if (a - lb != RawMemory.getLong(ra + 8L * i) - rb) {
          return false;
        }
        decreasing |= a < prev;
        prev = a;
      }
      decreasing |= le < prev;
    }
    if (decreasing) {
      throw firstBad64(left, la, l, k, lLimit);
    }
    return true;
  }

  /** The error for the first value of the run whose offsets are out of order or bounds. */
  private static RuntimeException firstBad32(ColumnLayout side, long first, int row, int k, long limit) {
    for (int j = 0; j < k; j++) {
      long s = RawMemory.getInt(first + 4L * j);
      long e = RawMemory.getInt(first + 4L * j + 4);
      if (s < 0 || s > e || e > limit) {
        return side.badOffsets(row + j, s, e, limit);
      }
    }
    return side.badOffsets(row, RawMemory.getInt(first), RawMemory.getInt(first + 4L * k), limit);
  }

  private static RuntimeException firstBad64(ColumnLayout side, long first, int row, int k, long limit) {
    for (int j = 0; j < k; j++) {
      long s = RawMemory.getLong(first + 8L * j);
      long e = RawMemory.getLong(first + 8L * j + 8);
      if (s < 0 || s > e || e > limit) {
        return side.badOffsets(row + j, s, e, limit);
      }
    }
    return side.badOffsets(row, RawMemory.getLong(first), RawMemory.getLong(first + 8L * k), limit);
  }
}
