package io.rowmatch.spark.shuffle;

import static io.rowmatch.spark.shuffle.ShuffleFormat.BASE;

import org.apache.spark.unsafe.Platform;

/**
 * Bitmaps (validity, boolean values) between Arrow buffers and records: gathered out of a source bitmap
 * into a record 64 rows per register word, and appended from a record at any bit position of a
 * destination bitmap 64 bits per store. Callers prove every address and record range first.
 */
final class ShuffleBits {
  private ShuffleBits() {}

  /**
   * Writes bits {@code rows[from..from+count)} of the bitmap at {@code bitmap} into {@code record} at
   * {@code at}, packed, padding bits zero ({@code ceil(count/8)} bytes).
   */
  static void gather(long bitmap, int[] rows, int from, int count, byte[] record, long at) {
    for (int base = 0; base < count; base += 64) {
      int end = Math.min(count, base + 64);
      long word = 0;
      for (int i = base; i < end; i++) {
        int r = rows[from + i];
        word |= (long) ((Platform.getByte(null, bitmap + (r >>> 3)) >>> (r & 7)) & 1) << (i - base);
      }
      long dst = BASE + at + (base >>> 3);
      if (end - base == 64) {
        Platform.putLong(record, dst, word);
      } else {
        for (int b = 0; b < end - base; b += 8) {
          Platform.putByte(record, dst + (b >>> 3), (byte) (word >>> b));
        }
      }
    }
  }

  /**
   * Appends {@code count} bits from {@code record} at byte {@code at} to the bitmap at {@code bitmap},
   * starting at bit {@code dstBit}. Bits below dstBit are kept; the bits after the last appended one in its
   * byte become zero. The destination must hold {@code ceil((dstBit + count) / 8)} bytes.
   */
  static void append(byte[] record, long at, int count, long bitmap, int dstBit) {
    if (count == 0) {
      return;
    }
    long dst = bitmap + (dstBit >>> 3);
    int shift = dstBit & 7;
    int bytes = (count + 7) >>> 3;
    int tail = count & 7;
    long src = BASE + at;
    if (shift == 0) {
      Platform.copyMemory(record, src, null, dst, bytes);
      if (tail != 0) {
        long last = dst + bytes - 1;
        Platform.putByte(null, last, (byte) (Platform.getByte(null, last) & ((1 << tail) - 1)));
      }
      return;
    }
    long carry = Platform.getByte(null, dst) & ((1 << shift) - 1);
    int whole = tail == 0 ? bytes : bytes - 1;
    int i = 0;
    for (; i + 8 <= whole; i += 8) {
      long w = Platform.getLong(record, src + i);
      Platform.putLong(null, dst + i, carry | (w << shift));
      carry = w >>> (64 - shift);
    }
    for (; i < bytes; i++) {
      int b = Platform.getByte(record, src + i) & 0xff;
      if (i == bytes - 1 && tail != 0) {
        b &= (1 << tail) - 1;
      }
      Platform.putByte(null, dst + i, (byte) (carry | ((long) b << shift)));
      carry = b >>> (8 - shift);
    }
    if (shift + count > 8L * bytes) {
      Platform.putByte(null, dst + bytes, (byte) carry);
    }
  }

  /** Sets bits {@code [from, from + count)} of the bitmap at {@code bitmap}; later bits of the last byte become zero. */
  static void setOnes(long bitmap, int from, int count) {
    if (count == 0) {
      return;
    }
    int end = from + count;
    long first = bitmap + (from >>> 3);
    long last = bitmap + ((end - 1) >>> 3);
    int low = (1 << (from & 7)) - 1;
    int lastMask = (1 << (((end - 1) & 7) + 1)) - 1;
    if (first == last) {
      Platform.putByte(null, first, (byte) ((Platform.getByte(null, first) & low) | (lastMask & ~low)));
      return;
    }
    Platform.putByte(null, first, (byte) ((Platform.getByte(null, first) & low) | (0xff & ~low)));
    if (last - first > 1) {
      Platform.setMemory(first + 1, (byte) 0xff, last - first - 1);
    }
    Platform.putByte(null, last, (byte) lastMask);
  }
}
