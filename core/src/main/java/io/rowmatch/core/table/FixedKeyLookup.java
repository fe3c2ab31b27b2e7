package io.rowmatch.core.table;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;
import io.rowmatch.core.hash.HashMixer;

import java.util.function.LongUnaryOperator;

/**
 * The lookup of a table keyed by one 4- or 8-byte integral column (bigint, int, date, timestamp, ...) where
 * null never matches: hash, slot walk and key compare fused into one loop per probe row, reading the probe
 * value and the stored key straight from their buffers. The general path hashes the batch, gathers candidate
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
      int rowCount, int[] groupIds) {
    if (probe.allNull || probe.kind != stored.kind) {
      return false;
    }
    if (probe.kind == ColumnKind.FIXED8) {
      lookup8(probe, stored, slots, hashOverride, rowCount, groupIds);
    } else {
      lookup4(probe, stored, slots, hashOverride, rowCount, groupIds);
    }
    return true;
  }

  private static void lookup8(ColumnLayout probe, ColumnLayout stored, HashSlots slots,
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
      long value = RawMemory.getLong(data + 8L * i);
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
          if (RawMemory.getLong(keys + 8L * id) == value) {
            group = id;
            break;
          }
        }
        p = (p + 1) & mask;
      }
      groupIds[i] = group;
    }
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
