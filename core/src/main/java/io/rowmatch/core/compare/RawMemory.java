package io.rowmatch.core.compare;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Raw reads at absolute addresses. Callers prove every address in bounds first (capacities at build,
 * row indices once per call, offsets per value), so these reads carry no checks of their own and behave
 * the same whether or not {@code arrow.enable_unsafe_memory_access} is set.
 */
public final class RawMemory {
  private RawMemory() {}

  public static boolean bit(long address, long index) {
    return ((MemoryUtil.getByte(address + (index >>> 3)) >> (index & 7)) & 1) != 0;
  }

  public static byte getByte(long address) {
    return MemoryUtil.getByte(address);
  }

  public static short getShort(long address) {
    return MemoryUtil.getShort(address);
  }

  public static int getInt(long address) {
    return MemoryUtil.getInt(address);
  }

  public static long getLong(long address) {
    return MemoryUtil.getLong(address);
  }

  /**
   * True when the {@code length} bytes at {@code a} and at {@code b} are the same. Word at a time; the
   * tail is one more word (or int) read overlapping the previous one, never a byte loop, and never a
   * byte outside {@code [a, a + length)}.
   */
  public static boolean equalBytes(long a, long b, long length) {
    if (length >= 8) {
      long last = length - 8;
      if (length <= 24) {
        // Short keys, the common case: three words (first, middle, last; overlapping when shorter than
        // 24) cover the value, combined without a branch whose outcome depends on the length.
        long mid = Math.min(8, last);
        return ((MemoryUtil.getLong(a) ^ MemoryUtil.getLong(b))
            | (MemoryUtil.getLong(a + mid) ^ MemoryUtil.getLong(b + mid))
            | (MemoryUtil.getLong(a + last) ^ MemoryUtil.getLong(b + last))) == 0;
      }
      for (long i = 0; i < last; i += 8) {
        if (MemoryUtil.getLong(a + i) != MemoryUtil.getLong(b + i)) {
          return false;
        }
      }
      return MemoryUtil.getLong(a + last) == MemoryUtil.getLong(b + last);
    }
    if (length >= 4) {
      return ((MemoryUtil.getInt(a) ^ MemoryUtil.getInt(b))
          | (MemoryUtil.getInt(a + length - 4) ^ MemoryUtil.getInt(b + length - 4))) == 0;
    }
    if (length == 0) {
      return true;
    }
    // 1 to 3 bytes: the first, middle and last byte cover them all.
    long mid = length >>> 1;
    return MemoryUtil.getByte(a) == MemoryUtil.getByte(b)
        && MemoryUtil.getByte(a + mid) == MemoryUtil.getByte(b + mid)
        && MemoryUtil.getByte(a + length - 1) == MemoryUtil.getByte(b + length - 1);
  }
}
