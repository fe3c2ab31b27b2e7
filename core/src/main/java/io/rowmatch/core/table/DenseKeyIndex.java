package io.rowmatch.core.table;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;

/**
 * A direct-address index for a finished join table keyed by one 4- or 8-byte integral column (null never
 * matching) whose distinct keys span a small range, as surrogate and sequential ids do: one int per value of
 * [min, max], the group holding that key or -1. A lookup is one range test and one load, instead of a hash,
 * a slot walk and a key compare (two dependent cache misses once the table outgrows the cache). Spark's
 * LongHashedRelation has the same dense mode.
 *
 * <p>Built only when the range is at most {@link #MAX_SPREAD} times the number of keys (so it costs at most
 * 4 x MAX_SPREAD bytes per key, against 16 per key for the hash slots) or below {@link #SMALL_RANGE} whatever the
 * number of keys (at most 256 KiB, which stays in a core's cache: a filtered dimension's few keys scattered over
 * its surrogate ids), and at most {@link #MAX_ENTRIES}. Its buffer comes from the table's allocator.
 */
final class DenseKeyIndex implements AutoCloseable {
  static final int MAX_SPREAD = 4;
  static final long MAX_ENTRIES = 1L << 27;
  static final long SMALL_RANGE = 1L << 16;

  private final ArrowBuf ids;
  private final long min;
  private final long max;

  private DenseKeyIndex(ArrowBuf ids, long min, long max) {
    this.ids = ids;
    this.min = min;
    this.max = max;
  }

  /**
   * The index over {@code keyColumn} (one row per group, row index = group id), or null when the keys are not
   * of an integral kind or span too wide a range. Null rows (groups that never match) stay out of it.
   */
  static DenseKeyIndex tryBuild(BufferAllocator allocator, FieldVector keyColumn, int groups) {
    if (groups == 0) {
      return null;
    }
    ColumnLayout keys = ColumnLayout.of(keyColumn, "key column 0 (table)");
    if (keys.allNull || (keys.kind != ColumnKind.FIXED8 && keys.kind != ColumnKind.FIXED4)) {
      return null;
    }
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int g = 0; g < groups; g++) {
      if (keys.isValid(g)) {
        long v = value(keys, g);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    }
    if (min > max) {
      return null;
    }
    // max - min overflows only for ranges far beyond MAX_ENTRIES: a negative or huge difference is refused.
    long span = max - min;
    if (span < 0 || span >= MAX_ENTRIES || (span >= (long) MAX_SPREAD * groups && span >= SMALL_RANGE)) {
      return null;
    }
    long entries = span + 1;
    ArrowBuf ids = allocator.buffer(4 * entries);
    MemoryUtil.setMemory(ids.memoryAddress(), 4 * entries, (byte) 0xFF); // every entry -1
    long at = ids.memoryAddress();
    for (int g = 0; g < groups; g++) {
      if (keys.isValid(g)) {
        // Distinct groups hold distinct keys (null never matches, so equality is bitwise): no entry is reused.
        MemoryUtil.putInt(at + 4 * (value(keys, g) - min), g);
      }
    }
    return new DenseKeyIndex(ids, min, max);
  }

  private static long value(ColumnLayout col, int row) {
    return col.kind == ColumnKind.FIXED8 ? RawMemory.getLong(col.data + 8L * row)
        : RawMemory.getInt(col.data + 4L * row);
  }

  /**
   * groupIds[i] for i < rowCount: the group of probe row i's key, or -1 (no such key, or a null). The probe
   * column is of the table's key type (checked by the caller) and holds at least rowCount values.
   */
  void lookup(ColumnLayout probe, int rowCount, int[] groupIds) {
    if (probe.allNull) {
      java.util.Arrays.fill(groupIds, 0, rowCount, -1);
      return;
    }
    final long validity = probe.validity;
    final long data = probe.data;
    final long at = ids.memoryAddress();
    final long lo = min;
    final long hi = max;
    final boolean wide = probe.kind == ColumnKind.FIXED8;
    for (int i = 0; i < rowCount; i++) {
      long v = wide ? RawMemory.getLong(data + 8L * i) : RawMemory.getInt(data + 4L * i);
      // Range test on the values themselves (v - min could wrap around for keys far outside the range).
      boolean hit = v >= lo && v <= hi && (validity == 0 || RawMemory.bit(validity, i));
      groupIds[i] = hit ? MemoryUtil.getInt(at + 4 * (v - lo)) : -1;
    }
  }

  @Override
  public void close() {
    ids.close();
  }
}
