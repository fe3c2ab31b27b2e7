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

  /** True when the {@code length} bytes at {@code a} and at {@code b} are the same. */
  public static boolean equalBytes(long a, long b, long length) {
    while (length >= 8) {
      if (MemoryUtil.getLong(a) != MemoryUtil.getLong(b)) {
        return false;
      }
      a += 8;
      b += 8;
      length -= 8;
    }
    if (length >= 4) {
      if (MemoryUtil.getInt(a) != MemoryUtil.getInt(b)) {
        return false;
      }
      a += 4;
      b += 4;
      length -= 4;
    }
    while (length > 0) {
      if (MemoryUtil.getByte(a) != MemoryUtil.getByte(b)) {
        return false;
      }
      a++;
      b++;
      length--;
    }
    return true;
  }
}
