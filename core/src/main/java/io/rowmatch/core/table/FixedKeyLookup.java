package io.rowmatch.core.table;

import java.util.function.LongUnaryOperator;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;
import io.rowmatch.core.hash.HashMixer;

/**
 * The lookup of a table keyed by one 4- or 8-byte integral column (bigint, int, date, timestamp, ...) where
 * null never matches: hash, slot walk and key compare in tight loops over the batch, reading the probe
 * value and the stored key straight from their buffers (8-byte keys in three passes that keep the table's
 * cache misses independent of each other; 4-byte keys in one loop per row). The general path hashes the batch, gathers candidate
 * pairs and compares them through a {@link io.rowmatch.core.MultiColumnComparator} built per batch; for the
 * commonest join key that machinery costs more than the compare itself.
 *
 * <p>Same answers as the general path: the hash is {@link io.rowmatch.core.hash.RowHasher}'s for one column
 * (a lone column's hash is {@code mix(value)}), two values of these kinds are equal iff their bits are, and a
 * null probe row matches nothing. Floats are other kinds (their equality is not bitwise) and never come here.
 */
final class FixedKeyLookup {
  private FixedKeyLookup() {}

  /** True when a table over this key schema may use {@link #lookup}. */
  static boolean applies(int kind, boolean nullsEqual) {
    return !nullsEqual && (kind == ColumnKind.FIXED8 || kind == ColumnKind.FIXED4);
  }

  /**
   * groupIds[i] for i < rowCount: the group whose stored key equals probe row i, or -1. Returns false, doing
   * nothing, when the probe column is not of the table's kind (a NullVector): the caller takes the general path.
   *
   * @param probe the probe column; holds at least rowCount values (checked by the caller)
   * @param stored the table's key column; every group in {@code slots} is one of its rows and not null
   *     (null keys never enter the index when nulls never match)
   */
  static boolean lookup(ColumnLayout probe, ColumnLayout stored, HashSlots slots, LongUnaryOperator hashOverride,
      int rowCount, int[] groupIds, ProbeScratch scratch) {
    if (probe.allNull || probe.kind != stored.kind) {
      return false;
    }
    if (probe.kind == ColumnKind.FIXED8) {
      lookup8(probe, stored, slots, hashOverride, rowCount, groupIds, scratch);
    } else {
      lookup4(probe, stored, slots, hashOverride, rowCount, groupIds);
    }
    return true;
  }

  private static void lookup8(ColumnLayout probe, ColumnLayout stored, HashSlots slots,
      LongUnaryOperator hashOverride, int rowCount, int[] groupIds, ProbeScratch scratch) {
    final long validity = probe.validity;
    final long data = probe.data;
    final long keys = stored.data;
    final int mask = slots.mask();
    scratch.ensure(rowCount);
    final long[] values = scratch.hashes;
    final long[] entries = scratch.entries;
    final int[] tags = scratch.tags;
    // Pass 1: every row's home slot. The loads are independent of each other and no branch waits on them, so
    // the CPU keeps many cache misses in flight (a table larger than the cache misses on almost every row).
    for (int i = 0; i < rowCount; i++) {
      long value = RawMemory.getLong(data + 8L * i);
      long hash = HashMixer.mix(value);
      if (hashOverride != null) {
        hash = hashOverride.applyAsLong(hash);
      }
      int tag = HashSlots.tag(hash);
      values[i] = value;
      tags[i] = tag;
      entries[i] = slots.get(tag & mask);
    }
    // Pass 2: the stored key of each home slot whose tag matches (group 0's otherwise, a valid row: the table
    // holds a group), loaded unconditionally for the same reason.
    final int[] candidates = scratch.candGroups;
    final long[] storedValues = scratch.storedValues;
    for (int i = 0; i < rowCount; i++) {
      long e = entries[i];
      int id = e != 0 && HashSlots.entryTag(e) == tags[i] ? HashSlots.entryId(e) : 0;
      candidates[i] = id;
      storedValues[i] = RawMemory.getLong(keys + 8L * id);
    }
    // Pass 3: decide; a home slot holding another key continues along the probe sequence (rare at load <= 1/2).
    for (int i = 0; i < rowCount; i++) {
      if (validity != 0 && !RawMemory.bit(validity, i)) {
        groupIds[i] = -1;
        continue;
      }
      long e = entries[i];
      long value = values[i];
      int tag = tags[i];
      if (e == 0) {
        groupIds[i] = -1;
      } else if (HashSlots.entryTag(e) == tag && storedValues[i] == value) {
        groupIds[i] = candidates[i];
      } else {
        groupIds[i] = walk8(slots, keys, mask, (tag + 1) & mask, tag, value);
      }
    }
  }

  /** The rest of a probe sequence from slot {@code p}: the group whose stored key is {@code value}, or -1. */
  private static int walk8(HashSlots slots, long keys, int mask, int p, int tag, long value) {
    for (long e = slots.get(p); e != 0; e = slots.get(p)) {
      if (HashSlots.entryTag(e) == tag && RawMemory.getLong(keys + 8L * HashSlots.entryId(e)) == value) {
        return HashSlots.entryId(e);
      }
      p = (p + 1) & mask;
    }
    return -1;
  }

  private static void lookup4(ColumnLayout probe, ColumnLayout stored, HashSlots slots,
      LongUnaryOperator hashOverride, int rowCount, int[] groupIds) {
    final long validity = probe.validity;
    final long data = probe.data;
    final long keys = stored.data;
    final int mask = slots.mask();
    for (int i = 0; i < rowCount; i++) {
      if (validity != 0 && !RawMemory.bit(validity, i)) {
        groupIds[i] = -1;
        continue;
      }
      int value = RawMemory.getInt(data + 4L * i);
      long hash = HashMixer.mix(value);
      if (hashOverride != null) {
        hash = hashOverride.applyAsLong(hash);
      }
      int tag = HashSlots.tag(hash);
      int p = tag & mask;
      int group = -1;
      for (long e = slots.get(p); e != 0; e = slots.get(p)) {
        if (HashSlots.entryTag(e) == tag) {
          int id = HashSlots.entryId(e);
          if (RawMemory.getInt(keys + 4L * id) == value) {
            group = id;
            break;
          }
        }
        p = (p + 1) & mask;
      }
      groupIds[i] = group;
    }
  }
}
