package io.rowmatch.core.table;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A growable array of ints in an {@link ArrowBuf}, so per-row bookkeeping counts against the caller's
 * allocator. Appends double the capacity when full (amortized O(1), no quadratic copying). Index checks are
 * the caller's: every index used comes from counts this class handed out.
 */
final class ArrowInts implements AutoCloseable {
  private final BufferAllocator allocator;
  private ArrowBuf buf;
  private long address;
  private int capacity;
  private int size;

  ArrowInts(BufferAllocator allocator, int initialCapacity) {
    this.allocator = allocator;
    int cap = Math.max(16, initialCapacity);
    this.buf = allocator.buffer(4L * cap);
    this.address = buf.memoryAddress();
    this.capacity = cap;
  }

  int size() {
    return size;
  }

  int get(int i) {
    return MemoryUtil.getInt(address + 4L * i);
  }

  void set(int i, int value) {
    MemoryUtil.putInt(address + 4L * i, value);
  }

  /** Makes {@code n} entries addressable (contents of new entries unspecified until set). */
  void resize(int n) {
    reserve(n);
    size = n;
  }

  void fill(int value) {
    for (int i = 0; i < size; i++) {
      set(i, value);
    }
  }

  void append(int[] values, int count) {
    reserve((long) size + count);
    for (int k = 0; k < count; k++) {
      MemoryUtil.putInt(address + 4L * (size + k), values[k]);
    }
    size += count;
  }

  private void reserve(long needed) {
    if (needed <= capacity) {
      return;
    }
    if (needed > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("more than " + (Integer.MAX_VALUE - 8) + " entries");
    }
    long cap = capacity;
    while (cap < needed) {
      cap = Math.min(Integer.MAX_VALUE - 8, cap * 2);
    }
    ArrowBuf bigger = allocator.buffer(4L * cap);
    MemoryUtil.copyMemory(address, bigger.memoryAddress(), 4L * size);
    buf.close();
    buf = bigger;
    address = bigger.memoryAddress();
    capacity = (int) cap;
  }

  @Override
  public void close() {
    if (buf != null) {
      buf.close();
      buf = null;
      address = 0;
    }
  }
}
