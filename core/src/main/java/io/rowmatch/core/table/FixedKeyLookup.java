package io.rowmatch.core.table;

import java.util.function.LongUnaryOperator;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;
import io.rowmatch.core.hash.HashMixer;

/**
 * Lookups and interning for a table keyed by one 4- or 8-byte integral column (bigint, int, date, timestamp,
 * ...): hash, slot walk and key compare in tight loops over the batch, reading the probe value and the stored
 * key straight from their buffers (8-byte lookups, and 4-byte ones over a table larger than a core's cache, in
 * three passes that keep the table's cache misses independent of each other; other 4-byte lookups in one loop per
 * row). The general path hashes the batch, gathers
 * candidate pairs and compares them through a {@link io.rowmatch.core.MultiColumnComparator} built per batch;
 * for the commonest join and grouping key that machinery costs more than the compare itself.
 *
 * <p>Same answers as the general path: the hash is {@link io.rowmatch.core.hash.RowHasher}'s for one column
 * (a lone column's hash is {@code mix(value)}), two values of these kinds are equal iff their bits are, and a
 * null probe row matches nothing. Floats are other kinds (their equality is not bitwise) and never come here.
 * A table whose nulls are equal may hold one null group, in the index under the null hash: its stored value
 * is whatever lay under the null, so it is named ({@code nullGroup}) and never taken for a value's group.
 */
final class FixedKeyLookup {
  /**
   * Slots (256 KiB) up to which a 4-byte lookup takes one loop per row: its table stays in a core's cache. A larger
   * one takes the passes 8-byte lookups take, whose loads miss the cache independently (TPC-DS q72's probe of 45M
   * rows against 384K customer_demographics keys).
   */
  private static final int CACHED_SLOTS = 1 << 15;

  private FixedKeyLookup() {}

  /** True when a table over this key schema may use {@link #lookup}. */
  static boolean applies(int kind, boolean nullsEqual) {
    return !nullsEqual && isFixed(kind);
  }

  /** True when a key column of this kind may be interned by {@link #intern} (whatever its null rule). */
  static boolean isFixed(int kind) {
    return kind == ColumnKind.FIXED8 || kind == ColumnKind.FIXED4;
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
    if (probe.kind == ColumnKind.FIXED8 || slots.capacity() > CACHED_SLOTS) {
      readValues(probe, hashOverride, slots, rowCount, scratch);
      find(probe.validity, stored, -1, false, slots, rowCount, groupIds, scratch);
    } else {
      lookup4(probe, stored, slots, hashOverride, rowCount, groupIds);
    }
    return true;
  }

  /**
   * Interns rows [0, rowCount) of {@code batch}, a column of the table's kind with no null among them, exactly
   * as {@link GroupTable}'s general path would: ids of existing groups, new groups numbered from
   * {@code groupCount} in order of first appearance, their first rows in {@code newFirstRows}, and each new
   * group entered in {@code slots}. Returns how many groups the batch added; the caller stores their keys.
   *
   * @param nullGroup the table's group whose key is null, or -1
   */
  static int intern(ColumnLayout batch, ColumnLayout stored, int nullGroup, HashSlots slots,
      LongUnaryOperator hashOverride, int rowCount, int groupCount, int[] groupIds, int[] newFirstRows,
      ProbeScratch scratch) {
    readValues(batch, hashOverride, groupCount == 0 ? null : slots, rowCount, scratch);
    if (groupCount == 0) {
      java.util.Arrays.fill(groupIds, 0, rowCount, -1);
    } else {
      find(0, stored, nullGroup, true, slots, rowCount, groupIds, scratch);
    }
    return FixedKeyColumns.addNew(1, slots, rowCount, groupCount, groupIds, newFirstRows, scratch);
  }

  /** True when none of rows [0, rowCount) of {@code col} is null (a bitmap read a word at a time). */
  static boolean noNulls(ColumnLayout col, int rowCount) {
    if (col.allNull) {
      return rowCount == 0;
    }
    long validity = col.validity;
    if (validity == 0) {
      return true;
    }
    int words = rowCount >>> 6;
    for (int w = 0; w < words; w++) {
      if (RawMemory.getLong(validity + 8L * w) != -1L) {
        return false;
      }
    }
    for (int i = words << 6; i < rowCount; i++) {
      if (!RawMemory.bit(validity, i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Pass 1: every row's value (an int sign-extended) into scratch.columns[0], its tag into scratch.tags, as
   * {@link FixedKeyColumns#read} leaves them for one column (no row marked null: interning takes batches without
   * nulls, a lookup tests the probe's validity itself), and, given the slots, its home slot's entry into
   * scratch.entries: those loads are independent of each other and no branch waits on them, so the CPU keeps many
   * cache misses in flight (a table larger than the cache misses on almost every row). The value under a null is
   * read too and never used.
   */
  private static void readValues(ColumnLayout col, LongUnaryOperator hashOverride, HashSlots slots, int rowCount,
      ProbeScratch scratch) {
    scratch.ensure(rowCount);
    scratch.ensureColumns(1, rowCount);
    java.util.Arrays.fill(scratch.nullRows, 0, rowCount, false);
    final long[] values = scratch.columns[0];
    final int[] tags = scratch.tags;
    readColumn(col, values, rowCount);
    if (slots == null) {
      for (int i = 0; i < rowCount; i++) {
        tags[i] = HashSlots.tag(hash(values[i], hashOverride));
      }
      return;
    }
    final int mask = slots.mask();
    final long[] entries = scratch.entries;
    for (int i = 0; i < rowCount; i++) {
      int tag = HashSlots.tag(hash(values[i], hashOverride));
      tags[i] = tag;
      entries[i] = slots.get(tag & mask);
    }
  }

  /**
   * Enters groups [0, groups) of the stored key column, all distinct and none null, into empty {@code slots} under
   * the hash {@link #intern} gives their values (a table leaving its index by value, {@link DenseGroups}).
   */
  static void index(ColumnLayout stored, int groups, HashSlots slots, LongUnaryOperator hashOverride) {
    slots.ensureFits(groups);
    long[] values = new long[groups];
    readColumn(stored, values, groups);
    int mask = slots.mask();
    for (int g = 0; g < groups; g++) {
      int tag = HashSlots.tag(hash(values[g], hashOverride));
      int p = tag & mask;
      while (slots.get(p) != 0) {
        p = (p + 1) & mask;
      }
      slots.set(p, HashSlots.entry(tag, g));
    }
  }

  private static long hash(long value, LongUnaryOperator hashOverride) {
    long hash = HashMixer.mix(value);
    return hashOverride == null ? hash : hashOverride.applyAsLong(hash);
  }

  /** values[i] = row i's value of a 4- or 8-byte integral column (an int sign-extended), for i < rowCount. */
  static void readColumn(ColumnLayout col, long[] values, int rowCount) {
    final long data = col.data;
    if (col.kind == ColumnKind.FIXED8) {
      for (int i = 0; i < rowCount; i++) {
        values[i] = RawMemory.getLong(data + 8L * i);
      }
    } else {
      for (int i = 0; i < rowCount; i++) {
        values[i] = RawMemory.getInt(data + 4L * i);
      }
    }
  }

  /**
   * groupIds[i] = the group whose stored key equals row i's value (from {@link #readValues}, home entries
   * included), or, for a miss, {@code ~q} (a negative) for the empty slot q that ended its probe sequence when
   * {@code missSlots}, else -1; rows not valid in {@code validity} (0: all valid) get -1. The stored key each home
   * slot names first, then the decisions: as the home entries' loads, the stored keys' do not wait on each
   * other. Needs a table that holds a group.
   */
  private static void find(long validity, ColumnLayout stored, int nullGroup, boolean missSlots, HashSlots slots,
      int rowCount, int[] groupIds, ProbeScratch scratch) {
    final long keys = stored.data;
    final boolean wide = stored.kind == ColumnKind.FIXED8;
    final int mask = slots.mask();
    final long[] values = scratch.columns[0];
    final int[] tags = scratch.tags;
    final long[] entries = scratch.entries;
    // The stored key of each home slot whose tag matches (group 0's otherwise, a valid row: the table holds a
    // group), loaded unconditionally for the same reason.
    final int[] candidates = scratch.candGroups;
    final long[] storedValues = scratch.storedValues;
    if (wide) {
      for (int i = 0; i < rowCount; i++) {
        long e = entries[i];
        int id = e != 0 && HashSlots.entryTag(e) == tags[i] ? HashSlots.entryId(e) : 0;
        candidates[i] = id;
        storedValues[i] = RawMemory.getLong(keys + 8L * id);
      }
    } else {
      for (int i = 0; i < rowCount; i++) {
        long e = entries[i];
        int id = e != 0 && HashSlots.entryTag(e) == tags[i] ? HashSlots.entryId(e) : 0;
        candidates[i] = id;
        storedValues[i] = RawMemory.getInt(keys + 4L * id);
      }
    }
    // Decide; a home slot holding another key continues along the probe sequence (rare at load <= 1/2). A miss
    // keeps the empty slot that ended its walk (~slot): the slots before it hold only the groups compared here.
    for (int i = 0; i < rowCount; i++) {
      if (validity != 0 && !RawMemory.bit(validity, i)) {
        groupIds[i] = -1;
        continue;
      }
      long e = entries[i];
      long value = values[i];
      int tag = tags[i];
      int home = tag & mask;
      int found;
      if (e == 0) {
        found = ~home;
      } else if (HashSlots.entryTag(e) == tag && storedValues[i] == value && candidates[i] != nullGroup) {
        found = candidates[i];
      } else {
        found = walk(slots, keys, wide, nullGroup, mask, (home + 1) & mask, tag, value);
      }
      groupIds[i] = missSlots || found >= 0 ? found : -1;
    }
  }

  /**
   * The rest of a probe sequence from slot {@code p}: the group whose stored key is {@code value}, or {@code ~q}
   * for the empty slot q that ended it.
   */
  private static int walk(HashSlots slots, long keys, boolean wide, int nullGroup, int mask, int p, int tag,
      long value) {
    for (long e = slots.get(p); e != 0; e = slots.get(p)) {
      if (HashSlots.entryTag(e) == tag) {
        int id = HashSlots.entryId(e);
        long stored = wide ? RawMemory.getLong(keys + 8L * id) : RawMemory.getInt(keys + 4L * id);
        if (stored == value && id != nullGroup) {
          return id;
        }
      }
      p = (p + 1) & mask;
    }
    return ~p;
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
