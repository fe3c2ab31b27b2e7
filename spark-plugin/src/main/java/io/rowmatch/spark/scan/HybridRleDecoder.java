package io.rowmatch.spark.scan;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Parquet's RLE / bit-packed hybrid encoding (definition levels, dictionary ids) read from a byte array: runs of
 * one repeated value, and groups of 8 values packed {@code width} bits each, least significant bit first. A
 * packed run is unpacked with one 8-byte little-endian load per value (a shift and a mask), not byte by byte.
 * Every read stays inside {@code [start, end)}: bytes past the end of a truncated last run count as zeros,
 * as parquet-mr reads them.
 */
final class HybridRleDecoder {
  static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final String column;
  private byte[] buf;
  private int pos;
  private int end;
  private int width;
  private long mask;
  private int runLeft;
  private boolean packed;
  private int runValue;
  private int packedStart;
  private int packedIndex;
  private int max; // the largest value read since resetMax, for widths below 32 (dictionary id checks)

  HybridRleDecoder(String column) {
    this.column = column;
  }

  void init(byte[] buf, int start, int end, int width) throws IOException {
    if (width < 0 || width > 32 || start < 0 || end > buf.length || start > end) {
      throw malformed("bit width " + width + " or range [" + start + ", " + end + ") of " + buf.length + " bytes");
    }
    this.buf = buf;
    this.pos = start;
    this.end = end;
    this.width = width;
    this.mask = width == 0 ? 0 : (1L << width) - 1;
    this.runLeft = 0;
    this.max = 0;
  }

  /**
   * How many of the next values, at most {@code max}, lie in the current run; {@link #repeated} then says
   * whether they are one repeated value (consume them with {@link #skip}) or packed ones (read them). A page
   * without nulls has one repeated run of defined levels, so its rows need no per-value levels.
   */
  int runLength(int max) throws IOException {
    if (runLeft == 0) {
      nextRun();
    }
    return Math.min(max, runLeft);
  }

  boolean repeated() {
    return !packed;
  }

  int repeatedValue() {
    return runValue;
  }

  /** Consumes {@code n} values of the current repeated run (at most {@link #runLength}). */
  void skip(int n) {
    runLeft -= n;
  }

  /**
   * The largest value read since the last call (then reset to 0), as an unsigned value only below width 32 (at
   * 32 a value may be negative as an int: callers check those values themselves).
   */
  int takeMax() {
    int m = max;
    max = 0;
    return m;
  }

  int width() {
    return width;
  }

  /** The next {@code n} values into {@code dst[off, off + n)}. */
  void read(int[] dst, int off, int n) throws IOException {
    while (n > 0) {
      if (runLeft == 0) {
        nextRun();
      }
      int k = Math.min(n, runLeft);
      if (packed) {
        unpack(dst, off, k);
      } else {
        Arrays.fill(dst, off, off + k, runValue);
        max = Math.max(max, runValue);
      }
      off += k;
      n -= k;
      runLeft -= k;
    }
  }

  private void unpack(int[] dst, int off, int k) {
    int w = width;
    long m = mask;
    long bit = (long) packedIndex * w;
    // Values whose 8-byte load stays inside the data take the fast loop; the last few take tailLong.
    int fast = 0;
    long lastSafeByte = (long) end - 8 - packedStart;
    if (lastSafeByte >= 0 && (lastSafeByte << 3) >= bit) {
      long safeValues = w == 0 ? k : ((lastSafeByte << 3) - bit) / w + 1;
      fast = (int) Math.max(0, Math.min(k, safeValues));
    }
    byte[] b = buf;
    int base = packedStart;
    int mx = max;
    for (int i = 0; i < fast; i++) {
      long word = (long) LONG_LE.get(b, base + (int) (bit >>> 3));
      int v = (int) ((word >>> (bit & 7)) & m);
      dst[off + i] = v;
      mx = Math.max(mx, v);
      bit += w;
    }
    for (int i = fast; i < k; i++) {
      long word = tailLong(base + (int) (bit >>> 3));
      int v = (int) ((word >>> (bit & 7)) & m);
      dst[off + i] = v;
      mx = Math.max(mx, v);
      bit += w;
    }
    max = mx;
    packedIndex += k;
  }

  private long tailLong(int at) {
    long word = 0;
    for (int i = 0; i < 8 && at + i < end; i++) {
      word |= (buf[at + i] & 0xffL) << (8 * i);
    }
    return word;
  }

  private void nextRun() throws IOException {
    do {
      if (pos >= end) {
        throw malformed("no more runs at byte " + pos);
      }
      int header = readUnsignedVarInt();
      if ((header & 1) == 0) {
        packed = false;
        runLeft = header >>> 1;
        int bytes = (width + 7) >>> 3;
        if (pos + bytes > end) {
          throw malformed("a repeated run's value past the end at byte " + pos);
        }
        int v = 0;
        for (int i = 0; i < bytes; i++) {
          v |= (buf[pos + i] & 0xff) << (8 * i);
        }
        pos += bytes;
        runValue = v;
      } else {
        packed = true;
        long values = (long) (header >>> 1) * 8;
        if (values > Integer.MAX_VALUE / 2) {
          throw malformed("a packed run of " + values + " values");
        }
        runLeft = (int) values;
        packedStart = pos;
        packedIndex = 0;
        pos = (int) Math.min(end, pos + (header >>> 1) * (long) width);
      }
    } while (runLeft == 0);
  }

  private int readUnsignedVarInt() throws IOException {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (pos >= end) {
        throw malformed("a run header past the end");
      }
      int b = buf[pos++] & 0xff;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw malformed("a run header longer than 5 bytes");
  }

  private IOException malformed(String what) {
    return new IOException("malformed Parquet RLE/bit-packed data in column " + column + ": " + what);
  }
}
