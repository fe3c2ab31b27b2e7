package io.rowmatch.core.compare;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A range of bits of an Arrow bitmap (LSB first), read 64 at a time from any bit offset, so slices and
 * {@code rangeEquals} starts need no byte alignment. Every read stays inside the first
 * {@code limitBytes} bytes of the bitmap: callers pass {@link ColumnLayout#bitmapBytes} of the side's
 * value count, which the layout proved the buffer holds.
 */
final class BitmapRange {
  private BitmapRange() {}

  /**
   * 64 bits starting at bit {@code bit}; bits at or past the end of the bitmap read as 0. The caller
   * masks off the bits it did not ask for.
   */
  static long word(long address, long bit, long limitBytes) {
    long index = bit >>> 3;
    int shift = (int) (bit & 7);
    long lo;
    long hi;
    if (index + 9 <= limitBytes) {
      lo = MemoryUtil.getLong(address + index);
      if (!MemoryUtil.LITTLE_ENDIAN) {
        lo = Long.reverseBytes(lo);
      }
      if (shift == 0) {
        return lo;
      }
      hi = MemoryUtil.getByte(address + index + 8) & 0xffL;
    } else {
      // The bitmap's last bytes: assemble them one by one rather than read past its end.
      lo = 0;
      for (int k = 0; k < 8 && index + k < limitBytes; k++) {
        lo |= (MemoryUtil.getByte(address + index + k) & 0xffL) << (8 * k);
      }
      if (shift == 0) {
        return lo;
      }
      hi = index + 8 < limitBytes ? MemoryUtil.getByte(address + index + 8) & 0xffL : 0;
    }
    return (lo >>> shift) | (hi << (64 - shift));
  }

  /** The low {@code bits} bits set, for {@code 1 <= bits <= 64}. */
  static long mask(long bits) {
    return bits >= 64 ? -1L : (1L << bits) - 1;
  }

  /** Number of set bits among {@code n} bits from {@code bit}. */
  static long countOnes(long address, long bit, long limitBytes, long n) {
    long ones = 0;
    for (long i = 0; i < n; i += 64) {
      ones += Long.bitCount(word(address, bit + i, limitBytes) & mask(n - i));
    }
    return ones;
  }

  /**
   * Compares {@code n} bits of two bitmaps: -1 when they differ anywhere, else the number of set bits.
   */
  static long equalCountingOnes(long left, long leftBit, long leftLimit, long right, long rightBit,
      long rightLimit, long n) {
    long ones = 0;
    for (long i = 0; i < n; i += 64) {
      long m = mask(n - i);
      long l = word(left, leftBit + i, leftLimit) & m;
      if (l != (word(right, rightBit + i, rightLimit) & m)) {
        return -1;
      }
      ones += Long.bitCount(l);
    }
    return ones;
  }

  /**
   * True when two bitmaps agree at every position where the mask bitmap is set ({@code mask == 0}
   * means everywhere): a BitVector's values, ignoring the bits under nulls.
   */
  static boolean equalWhere(long left, long leftBit, long leftLimit, long right, long rightBit, long rightLimit,
      long maskAddress, long maskBit, long maskLimit, long n) {
    for (long i = 0; i < n; i += 64) {
      long m = mask(n - i);
      if (maskAddress != 0) {
        m &= word(maskAddress, maskBit + i, maskLimit);
      }
      if (((word(left, leftBit + i, leftLimit) ^ word(right, rightBit + i, rightLimit)) & m) != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Number of runs of set bits among {@code n} bits from {@code bit}: how fragmented the validity is.
   * One pass of word reads, which is cheap beside the comparison it steers.
   */
  static long countRuns(long address, long bit, long limitBytes, long n) {
    long runs = 0;
    long carry = 0; // the previous word's top bit, moved to bit 0
    for (long i = 0; i < n; i += 64) {
      long w = word(address, bit + i, limitBytes) & mask(n - i);
      // A run starts at each set bit whose lower neighbour is clear.
      runs += Long.bitCount(w & ~((w << 1) | carry));
      carry = w >>> 63;
    }
    return runs;
  }
}
