package io.rowmatch.spark.expression;

import java.util.Arrays;

/**
 * The numeric value arrays of one batch's vectors (longs, decimal high words, doubles), taken back when the
 * compiled expressions open their next batch. A batch's kernels ask for their arrays in the same order batch after
 * batch, so once the first batches have been seen nothing is allocated or zeroed per batch: allocating and zeroing
 * them was a fifth of TPC-H q1's executor time. An array may be longer than the rows asked for; values past the rows
 * and under nulls are whatever an earlier batch left (a value under a null is unspecified for every vector). Only
 * numeric values come from here: validity and boolean words (small, and some kernels OR into them) and the string
 * offsets (read as positions into the bytes) are always new.
 *
 * <p>Used by one thread at a time, like the kernels' own caches (one compiled form per partition).
 */
final class VecScratch {
  /** Arrays longer than this are not kept between batches (an aggregate's output over all its groups). */
  static final int MAX_KEPT = 1 << 20;
  /** Sizes are rounded up to this, so a filter's batches of varying rows settle on one array each. */
  private static final int GRAIN = 1024;

  private long[][] longs = new long[8][];
  private int longsUsed;
  private double[][] doubles = new double[4][];
  private int doublesUsed;

  /** Every array handed out so far is free again: the batch that used them is done. */
  void reset() {
    longsUsed = 0;
    doublesUsed = 0;
  }

  long[] longs(int n) {
    if (n > MAX_KEPT) {
      return new long[n];
    }
    if (longsUsed == longs.length) {
      longs = Arrays.copyOf(longs, longs.length * 2);
    }
    long[] a = longs[longsUsed];
    if (a == null || a.length < n) {
      a = new long[roundUp(n)];
      longs[longsUsed] = a;
    }
    longsUsed++;
    return a;
  }

  double[] doubles(int n) {
    if (n > MAX_KEPT) {
      return new double[n];
    }
    if (doublesUsed == doubles.length) {
      doubles = Arrays.copyOf(doubles, doubles.length * 2);
    }
    double[] a = doubles[doublesUsed];
    if (a == null || a.length < n) {
      a = new double[roundUp(n)];
      doubles[doublesUsed] = a;
    }
    doublesUsed++;
    return a;
  }

  private static int roundUp(int n) {
    return Math.min(MAX_KEPT, (n + GRAIN - 1) / GRAIN * GRAIN);
  }
}
