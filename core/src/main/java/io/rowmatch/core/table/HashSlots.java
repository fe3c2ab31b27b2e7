package io.rowmatch.core.table;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Open-addressing slots (linear probing, power-of-two capacity) in an {@link ArrowBuf}, so the table's
 * index counts against the caller's allocator like its key columns do. A slot is one {@code long}: the
 * row's 32-bit folded hash (the tag) in the high half and {@code id + 1} in the low half; 0 is empty.
 * The tag both places the entry ({@code tag & mask}) and filters candidates before a key comparison, so
 * growing rehashes from the slots alone.
 */
final class HashSlots implements AutoCloseable {
  private static final int MIN_CAPACITY = 64;
  /** Largest capacity: 2^30 slots (8 GiB), beyond any int-indexed table at load 1/2. */
  private static final int MAX_CAPACITY = 1 << 30;
  /** Most slots {@link #spreadForProbing} spreads a table over: 256 KB, within a core's L2 cache. */
  private static final int SPREAD_MAX_CAPACITY = 1 << 15;

  private final BufferAllocator allocator;
  private ArrowBuf buf;
  private long address;
  private int capacity;
  private int mask;

  HashSlots(BufferAllocator allocator, int expectedEntries) {
    this.allocator = allocator;
    int cap = capacityFor(expectedEntries);
    this.buf = allocate(cap);
    this.address = buf.memoryAddress();
    this.capacity = cap;
    this.mask = cap - 1;
  }

  /** The 32-bit tag of a 64-bit row hash. */
  static int tag(long hash) {
    return (int) (hash ^ (hash >>> 32));
  }

  static long entry(int tag, int id) {
    return ((long) tag << 32) | ((id + 1) & 0xFFFFFFFFL);
  }

  static int entryTag(long entry) {
    return (int) (entry >>> 32);
  }

  static int entryId(long entry) {
    return (int) entry - 1;
  }

  int capacity() {
    return capacity;
  }

  int mask() {
    return mask;
  }

  long get(int position) {
    return MemoryUtil.getLong(address + 8L * position);
  }

  void set(int position, long entry) {
    MemoryUtil.putLong(address + 8L * position, entry);
  }

  /** Grows (doubling, rehashing once per doubling) until {@code entries} fit at load factor 1/2. */
  void ensureFits(long entries) {
    if (entries * 2 <= capacity) {
      return;
    }
    rehash(capacityFor(entries));
  }

  /**
   * For a table that will only be probed from now on: a small one is spread to load 1/8 at most, over no
   * more than {@link #SPREAD_MAX_CAPACITY} slots. A selective join probes mostly absent keys; at load 1/2 a
   * third of those find their home slot taken and walk on, behind a branch the CPU cannot predict (measured:
   * 17.5 ns per probe of 1,300 keys drawn from 200K values, against 11 ns per probe that matches). Spreading
   * is an optimization: without the memory for it the table keeps its slots.
   */
  void spreadForProbing(long entries) {
    long wanted = Math.min(SPREAD_MAX_CAPACITY, capacityFor(entries * 4));
    if (wanted > capacity) {
      try {
        rehash((int) wanted);
      } catch (OutOfMemoryException e) {
        // the allocator's limit is reached: probe the table as it is
      }
    }
  }

  private void rehash(int cap) {
    ArrowBuf bigger = allocate(cap);
    long newAddress = bigger.memoryAddress();
    int newMask = cap - 1;
    for (int p = 0; p < capacity; p++) {
      long e = get(p);
      if (e != 0) {
        int q = entryTag(e) & newMask;
        while (MemoryUtil.getLong(newAddress + 8L * q) != 0) {
          q = (q + 1) & newMask;
        }
        MemoryUtil.putLong(newAddress + 8L * q, e);
      }
    }
    buf.close();
    buf = bigger;
    address = newAddress;
    capacity = cap;
    mask = newMask;
  }

  private static int capacityFor(long entries) {
    long needed = Math.max(MIN_CAPACITY, entries * 2);
    if (needed > MAX_CAPACITY) {
      throw new IllegalStateException("hash table would need " + needed + " slots, more than " + MAX_CAPACITY);
    }
    return Integer.highestOneBit((int) needed - 1) << 1;
  }

  private ArrowBuf allocate(int cap) {
    ArrowBuf b = allocator.buffer(8L * cap);
    b.setZero(0, 8L * cap);
    return b;
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
