package io.rowmatch.core.compare;

import org.apache.arrow.memory.util.MemoryUtil;

import java.nio.ByteBuffer;

/**
 * One bulk comparison of two byte ranges whose bounds the caller has proved. Long ranges go to
 * {@link ByteBuffer#mismatch}, which the JDK runs as a vectorized intrinsic; wrapping an address in a
 * ByteBuffer costs a reflective constructor call per side, so short ranges keep the 8-bytes-a-step loop
 * of {@link RawMemory#equalBytes}. The switch point was measured (see bench/RESULTS.md, ArrayEquals).
 */
public final class BulkBytes {
  private BulkBytes() {}

  /** From this many bytes on, the vectorized mismatch is faster than the long-by-long loop. */
  static final long VECTORIZED_MIN = 1024;
  /** ByteBuffers hold at most Integer.MAX_VALUE bytes: longer ranges go in chunks of this size. */
  private static final int CHUNK = 1 << 30;
  /** False when the JVM does not let Arrow wrap addresses (no --add-opens java.nio): loop only. */
  private static final boolean VECTORIZED = wrappingWorks();

  private static boolean wrappingWorks() {
    try {
      return MemoryUtil.directBuffer(0, 0) != null;
    } catch (Throwable e) {
      return false;
    }
  }

  /** True when the {@code length} bytes at {@code a} and at {@code b} are the same. */
  public static boolean equal(long a, long b, long length) {
    if (length < VECTORIZED_MIN || !VECTORIZED) {
      return RawMemory.equalBytes(a, b, length);
    }
    while (length > 0) {
      int step = (int) Math.min(length, CHUNK);
      if (MemoryUtil.directBuffer(a, step).mismatch(MemoryUtil.directBuffer(b, step)) >= 0) {
        return false;
      }
      a += step;
      b += step;
      length -= step;
    }
    return true;
  }
}
