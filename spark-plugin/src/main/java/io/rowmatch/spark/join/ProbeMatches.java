package io.rowmatch.spark.join;

/**
 * A chunked join's memory of its probe rows across build chunks ({@link ChunkedJoin}): one bit per probe row
 * of the partition, in the order the probe file is read (the same each pass), set once the row had a passing
 * match (or, null-aware, was dropped) against some chunk. The chunk passes record; the last pass, against no
 * build rows, applies the bits before deciding which probe rows an outer, semi or anti join keeps.
 */
final class ProbeMatches {
  private final long[] bits;
  private boolean applying;

  ProbeMatches(long rows) {
    if (rows > (long) Integer.MAX_VALUE * 64) {
      throw new IllegalArgumentException("too many probe rows in one partition: " + rows);
    }
    bits = new long[(int) ((rows + 63) >>> 6)];
  }

  /** Heap bytes held (charged to the task's memory by the caller). */
  long bytes() {
    return 8L * bits.length;
  }

  boolean applying() {
    return applying;
  }

  /** From now on the bits are read, not written: the pass that emits the probe rows. */
  void startApplying() {
    applying = true;
  }

  /** Rows {@code first .. first + n - 1} of the partition: sets the bit of each passed row. */
  void record(long first, boolean[] passed, int n) {
    for (int i = 0; i < n; i++) {
      if (passed[i]) {
        long r = first + i;
        bits[(int) (r >>> 6)] |= 1L << r;
      }
    }
  }

  /** Rows {@code first .. first + n - 1}: a row passed when it passed in any chunk. */
  void apply(long first, boolean[] passed, int n) {
    for (int i = 0; i < n; i++) {
      long r = first + i;
      passed[i] |= (bits[(int) (r >>> 6)] & (1L << r)) != 0;
    }
  }
}
