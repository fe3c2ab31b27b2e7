package io.rowmatch.spark.expression;

import org.apache.spark.unsafe.Platform;

/**
 * Equality with a few literal strings, a word at a time: a string of up to 8 bytes is one masked 8-byte load
 * compared with the literal's word (strings read from Arrow carry {@link Vec#BYTES_PAD} bytes after them), so
 * `l_shipmode IN ('AIR', 'REG AIR')` costs a length test and a load per row, not a byte loop per item.
 */
final class ShortStrings {
  /** The byte-order-neutral mask of a word's first k bytes in memory order. */
  private static final long[] MASK = new long[9];

  static {
    byte[] b = new byte[8];
    for (int k = 0; k <= 8; k++) {
      MASK[k] = Platform.getLong(b, Platform.BYTE_ARRAY_OFFSET);
      if (k < 8) {
        b[k] = (byte) 0xFF;
      }
    }
  }

  private final byte[][] items;
  private final int[] lens;
  /** The item's bytes as a word (zero padded), for items of at most 8 bytes. */
  private final long[] words;

  ShortStrings(byte[][] items) {
    this.items = items;
    this.lens = new int[items.length];
    this.words = new long[items.length];
    for (int j = 0; j < items.length; j++) {
      lens[j] = items[j].length;
      if (lens[j] <= 8) {
        words[j] = Platform.getLong(java.util.Arrays.copyOf(items[j], 8), Platform.BYTE_ARRAY_OFFSET);
      }
    }
  }

  /** Sets bit i of {@code bits} for the rows 0..n of {@code a} equal to some item. */
  void matchInto(Vec a, int n, long[] bits) {
    if (a.dictIds != null) {
      matchDictionary(a, n, bits);
      return;
    }
    byte[] data = a.data;
    int[] starts = a.starts;
    int[] alens = a.lens;
    int m = lens.length;
    for (int w = 0, base = 0; base < n; w++, base += 64) {
      int end = Math.min(64, n - base);
      long word = 0;
      for (int k = 0; k < end; k++) {
        int i = base + k;
        int len = alens[i];
        int s = starts[i];
        boolean found = false;
        if (len <= 8 && s + 8 <= data.length) {
          long v = Platform.getLong(data, Platform.BYTE_ARRAY_OFFSET + s) & MASK[len];
          for (int j = 0; j < m; j++) {
            found |= lens[j] == len & words[j] == v;
          }
        } else {
          for (int j = 0; j < m && !found; j++) {
            found = lens[j] == len && CompareKernels.bytesEqual(data, s, items[j], 0, len);
          }
        }
        word |= (found ? 1L : 0L) << k;
      }
      bits[w] = word;
    }
  }

  /**
   * Strings of a dictionary-encoded column: each entry matched once (the first row holding it), then every row by
   * its id; null rows are left 0 (a value under a null is unspecified).
   */
  private void matchDictionary(Vec a, int n, long[] bits) {
    byte[] memo = new byte[a.dictBound]; // 0: not seen, 1: no item, 2: an item
    int[] ids = a.dictIds;
    long[] valid = a.valid;
    for (int w = 0, base = 0; base < n; w++, base += 64) {
      int end = Math.min(64, n - base);
      long word = 0;
      for (int k = 0; k < end; k++) {
        int i = base + k;
        if (valid != null && (valid[i >>> 6] & (1L << i)) == 0) {
          continue;
        }
        int id = ids[i];
        byte m = memo[id];
        if (m == 0) {
          m = matches(a.data, a.starts[i], a.lens[i]) ? (byte) 2 : (byte) 1;
          memo[id] = m;
        }
        word |= (m == 2 ? 1L : 0L) << k;
      }
      bits[w] = word;
    }
  }

  private boolean matches(byte[] data, int s, int len) {
    for (int j = 0; j < lens.length; j++) {
      if (lens[j] == len && CompareKernels.bytesEqual(data, s, items[j], 0, len)) {
        return true;
      }
    }
    return false;
  }
}
