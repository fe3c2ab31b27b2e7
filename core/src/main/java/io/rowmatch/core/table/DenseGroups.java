package io.rowmatch.core.table;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

import io.rowmatch.core.compare.ColumnLayout;

/**
 * A {@link GroupTable}'s index while its one integral key's values span a small range: group id + 1 stored at
 * {@code value - base} (0: no group), so interning a row is one load (and a store for a new key) with no hash,
 * no probe walk and no key compare. Surrogate and part keys (TPC-H l_partkey's 200,000 values, TPC-DS item keys)
 * span about as many values as they have groups: the array is smaller than the hash index (an int per value
 * against a long per slot at load 1/2) and its loads miss the cache less.
 *
 * <p>Grows (doubling toward the side the new values lie) up to {@link #MAX_RANGE} values; a batch past that is
 * refused whole ({@code -1}, nothing changed). A range wider than {@link #SMALL_RANGE} must hold, once as many rows
 * as it has values have been interned (random keys have shown most of their values by then), a group for at least
 * one value in {@link #SPARSEST} ({@link #tooSparse}). Either way the table then moves to its hash index for good.
 * Memory from the table's allocator. Not thread-safe.
 */
final class DenseGroups implements AutoCloseable {
  /** Values of the largest range: 4 MiB of ids. */
  static final int MAX_RANGE = 1 << 20;
  /** A range this small is kept however few groups it holds (256 KiB of ids). */
  static final int SMALL_RANGE = 1 << 16;
  /** Beyond SMALL_RANGE, the groups must fill at least one value in this many. */
  static final int SPARSEST = 32;

  private final BufferAllocator allocator;
  private ArrowBuf ids;
  private long base;
  private int range;
  /** Rows interned so far. */
  private long rowsSeen;

  DenseGroups(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /**
   * Interns rows [0, rowCount) of {@code batch} (no null among them) as {@link FixedKeyLookup#intern} would: ids
   * of existing groups, new groups numbered from {@code groupCount} in order of first appearance, their first rows
   * in {@code newFirstRows}. Returns how many groups the batch added, or -1 when its values would break the range
   * rules (nothing written). {@code values} is scratch of at least rowCount.
   */
  int intern(ColumnLayout batch, int rowCount, int groupCount, int[] groupIds, int[] newFirstRows, long[] values) {
    FixedKeyLookup.readColumn(batch, values, rowCount);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < rowCount; i++) {
      min = Math.min(min, values[i]);
      max = Math.max(max, values[i]);
    }
    if (!cover(min, max)) {
      return -1;
    }
    rowsSeen += rowCount;
    long address = ids.memoryAddress();
    long b = base;
    int added = 0;
    for (int i = 0; i < rowCount; i++) {
      long at = address + 4L * (values[i] - b); // inside: every value lies in [base, base + range)
      int id = MemoryUtil.getInt(at) - 1;
      if (id < 0) {
        id = groupCount + added;
        newFirstRows[added++] = i;
        MemoryUtil.putInt(at, id + 1);
      }
      groupIds[i] = id;
    }
    return added;
  }

  /** Makes [min, max] part of the range (doubling it when it grows); false when the rules refuse it. */
  private boolean cover(long min, long max) {
    long lo = ids == null ? min : Math.min(base, min);
    long hi = ids == null ? max : Math.max(base + range - 1, max);
    if (hi - lo >= MAX_RANGE || hi - lo < 0) { // the second: a span past Long.MAX_VALUE
      return false;
    }
    long needed = hi - lo + 1;
    if (ids != null && lo == base && hi == base + range - 1) {
      return true;
    }
    long grown = ids == null ? needed : Math.min(MAX_RANGE, Math.max(needed, 2L * range));
    // The slack goes where the values grew: past the top when the range rose, below it when it fell.
    long newBase = ids != null && lo < base ? hi - grown + 1 : lo;
    ArrowBuf bigger = allocator.buffer(4L * grown);
    bigger.setZero(0, 4L * grown);
    if (ids != null) {
      MemoryUtil.copyMemory(ids.memoryAddress(), bigger.memoryAddress() + 4L * (base - newBase), 4L * range);
      ids.close();
    }
    ids = bigger;
    base = newBase;
    range = (int) grown;
    return true;
  }

  /** Whether a wide range, seen long enough, holds too few of {@code groups} to stay indexed by value. */
  boolean tooSparse(int groups) {
    return range > SMALL_RANGE && rowsSeen >= range && (long) groups * SPARSEST < range;
  }

  @Override
  public void close() {
    if (ids != null) {
      ids.close();
      ids = null;
    }
  }
}
