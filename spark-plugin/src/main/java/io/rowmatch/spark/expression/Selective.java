package io.rowmatch.spark.expression;

/**
 * A boolean kernel evaluated on only the rows that still need it (a filter's later conjuncts where the earlier
 * held, AND's right side where the left is not false, OR's where it is not true): when few rows are active, they
 * are gathered into a smaller batch, evaluated there (every one of them active, so errors stay Spark's) and the
 * result scattered back; the other rows come back null, which their AND/OR/filter never reads.
 */
final class Selective {
  private Selective() {}

  /**
   * Gather when at most this share of the rows (in 1/8) is active; above it the whole batch costs less. Tests
   * set it to 0 (never) and 8 (always).
   */
  static int gatherEighths = 4;

  static Vec eval(Kernel k, EvalBatch in, long[] active) {
    int n = in.rows;
    if (active == null) {
      return k.eval(in, null);
    }
    int count = 0;
    for (long w : active) {
      count += Long.bitCount(w);
    }
    if ((long) count * 8 > (long) n * gatherEighths) {
      return k.eval(in, active);
    }
    int words = Vec.words(n);
    Vec out = new Vec(k.type, n);
    out.bits = new long[words];
    out.valid = new long[words];
    if (count == 0) {
      return out; // no row to evaluate, as in Spark's loop
    }
    int[] rows = new int[count];
    int j = 0;
    for (int w = 0; w < active.length; w++) {
      for (long m = active[w]; m != 0; m &= m - 1) {
        rows[j++] = (w << 6) + Long.numberOfTrailingZeros(m);
      }
    }
    Vec r = k.eval(in.select(rows, count), null);
    long[] bits = out.bits;
    long[] valid = out.valid;
    for (int i = 0; i < count; i++) {
      int row = rows[i];
      long bit = 1L << row;
      if (r.valid == null || (r.valid[i >>> 6] & (1L << i)) != 0) {
        valid[row >>> 6] |= bit;
      }
      if ((r.bits[i >>> 6] & (1L << i)) != 0) {
        bits[row >>> 6] |= bit;
      }
    }
    return out;
  }
}
