package io.rowmatch.core.compare;

import java.nio.ByteBuffer;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * One bulk comparison of two byte ranges whose bounds the caller has proved. Very long ranges go to
 * {@link ByteBuffer#mismatch}, which the JDK runs as a vectorized intrinsic; wrapping an address in a
 * ByteBuffer costs a reflective constructor call per side (~100 ns), and measured here the
 * 8-bytes-a-step loop of {@link RawMemory#equalBytes} stays faster up to 4 KiB and ties at 64 KiB
 * (BulkBytesBench, bench/RESULTS.md "ArrayEquals (issue 3)"), so the switch sits at 64 KiB.
 */
public final class BulkBytes {
  private BulkBytes() {}

  /** From this many bytes on, the vectorized mismatch is at least as fast as the long-by-long loop. */
  static final long VECTORIZED_MIN = 64 * 1024;
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
