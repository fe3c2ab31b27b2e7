package io.rowmatch.spark.aggregate;

import java.util.Arrays;

/**
 * Per-group (and per-batch scratch) primitive state arrays that grow by doubling as groups appear. Every
 * growth is charged to a {@link HeapAccount} before the larger array is allocated, so the state counts
 * against the task's memory limit.
 */
final class GrowableState {
  /** Heap bytes charged per object reference slot (uncompressed, the larger case). */
  static final int REFERENCE_BYTES = 8;
  /**
   * Heap bytes charged per BigDecimal slot: the reference plus an estimate of one live BigDecimal (object,
   * its BigInteger and magnitude array for up to 38 digits). An estimate: the JVM does not expose the size.
   */
  static final int DECIMAL_SLOT_BYTES = REFERENCE_BYTES + 104;

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

  /** The capacity to grow to, after charging (capacity - current) * bytesPerSlot to heap. */
  static int grow(HeapAccount heap, int current, int needed, long bytesPerSlot) {
    int capacity = newCapacity(current, needed);
    heap.charge((capacity - (long) current) * bytesPerSlot);
    return capacity;
  }

  static long[] ensure(HeapAccount heap, long[] a, int needed) {
    return needed <= a.length ? a : Arrays.copyOf(a, grow(heap, a.length, needed, Long.BYTES));
  }

  static double[] ensure(HeapAccount heap, double[] a, int needed) {
    return needed <= a.length ? a : Arrays.copyOf(a, grow(heap, a.length, needed, Double.BYTES));
  }

  static boolean[] ensure(HeapAccount heap, boolean[] a, int needed) {
    return needed <= a.length ? a : Arrays.copyOf(a, grow(heap, a.length, needed, 1));
  }

  static byte[] ensure(HeapAccount heap, byte[] a, int needed) {
    return needed <= a.length ? a : Arrays.copyOf(a, grow(heap, a.length, needed, 1));
  }

  static int[] ensure(HeapAccount heap, int[] a, int needed, int fill) {
    if (needed <= a.length) {
      return a;
    }
    int old = a.length;
    int[] b = Arrays.copyOf(a, grow(heap, old, needed, Integer.BYTES));
    if (fill != 0) {
      Arrays.fill(b, old, b.length, fill);
    }
    return b;
  }
}
