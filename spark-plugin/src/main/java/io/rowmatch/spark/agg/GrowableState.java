package io.rowmatch.spark.agg;

import java.util.Arrays;

/** Per-group primitive state arrays that grow (by doubling) as groups appear. */
final class GrowableState {
  private GrowableState() {}

  static int newCapacity(int current, int needed) {
    if (needed <= current) {
      return current;
    }
    long grown = Math.max((long) needed, Math.max(16L, (long) current * 2));
    if (grown > Integer.MAX_VALUE - 8) {
      grown = Integer.MAX_VALUE - 8;
    }
    return (int) grown;
  }

  static long[] ensure(long[] a, int needed) {
    return needed <= a.length ? a : Arrays.copyOf(a, newCapacity(a.length, needed));
  }

  static double[] ensure(double[] a, int needed) {
    return needed <= a.length ? a : Arrays.copyOf(a, newCapacity(a.length, needed));
  }

  static boolean[] ensure(boolean[] a, int needed) {
    return needed <= a.length ? a : Arrays.copyOf(a, newCapacity(a.length, needed));
  }

  static int[] ensure(int[] a, int needed, int fill) {
    if (needed <= a.length) {
      return a;
    }
    int old = a.length;
    int[] b = Arrays.copyOf(a, newCapacity(old, needed));
    Arrays.fill(b, old, b.length, fill);
    return b;
  }
}
