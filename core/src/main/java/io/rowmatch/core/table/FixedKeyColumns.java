package io.rowmatch.core.table;

import java.util.function.LongUnaryOperator;

import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;
import io.rowmatch.core.hash.HashMixer;

/**
 * Interning and lookups for a table keyed by two or more 4- or 8-byte integral columns ((bigint, bigint),
 * (int, bigint, date), ...): each key column's values read once per batch as longs, the row hash folded from them
 * as {@link io.rowmatch.core.hash.RowHasher} folds it, and a candidate compared as longs column by column,
 * instead of gathering candidate pairs for a {@link io.rowmatch.core.MultiColumnComparator} built per batch.
 * {@link FixedKeyLookup} is the one-column case.
 *
 * <p>Same answers as {@link GroupTable}'s general path. A row with a null in a column whose nulls never match
 * matches nothing, and interned it gets a group of its own that stays out of the index. A batch with a null in a
 * column whose nulls are equal takes the general path, and so does every batch once such a group is in the index
 * (the caller's rule): the value stored under a null is whatever lay there, and is never compared here.
 */
final class FixedKeyColumns {
  private FixedKeyColumns() {}

  /** True when a table over key columns of these kinds may use this class. */
  static boolean applies(int[] kinds) {
    if (kinds.length < 2) {
      return false;
    }
    for (int kind : kinds) {
      if (!FixedKeyLookup.isFixed(kind)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads rows [0, rowCount) of the batch into the scratch: each column's values, each row's tag, and
   * {@code scratch.nullRows[i]} for a row with a null (in a column whose nulls never match). Returns false,
   * reading nothing more, when the batch must take the general path: a column not of the table's kind (a
   * NullVector), or a null in a column whose nulls are equal.
   */
  static boolean read(ColumnLayout[] batch, int[] kinds, boolean[] nullsEqual, LongUnaryOperator hashOverride,
      int rowCount, ProbeScratch scratch) {
    boolean anyNull = false;
    for (int c = 0; c < batch.length; c++) {
      if (batch[c].kind != kinds[c]) {
        return false;
      }
      if (!FixedKeyLookup.noNulls(batch[c], rowCount)) {
        if (nullsEqual[c]) {
          return false;
        }
        anyNull = true;
      }
    }
    scratch.ensure(rowCount);
    scratch.ensureColumns(batch.length, rowCount);
    final long[] hashes = scratch.hashes;
    java.util.Arrays.fill(hashes, 0, rowCount, 0L); // combine(0, h) == h: column 0 needs no special case
    for (int c = 0; c < batch.length; c++) {
      final long[] values = scratch.columns[c];
      FixedKeyLookup.readColumn(batch[c], values, rowCount);
      for (int i = 0; i < rowCount; i++) {
        hashes[i] = HashMixer.combine(hashes[i], HashMixer.mix(values[i]));
      }
    }
    final int[] tags = scratch.tags;
    for (int i = 0; i < rowCount; i++) {
      long hash = hashOverride == null ? hashes[i] : hashOverride.applyAsLong(hashes[i]);
      tags[i] = HashSlots.tag(hash);
    }
    final boolean[] nullRows = scratch.nullRows;
    java.util.Arrays.fill(nullRows, 0, rowCount, false);
    if (anyNull) {
      for (ColumnLayout col : batch) {
        if (col.validity != 0) {
          for (int i = 0; i < rowCount; i++) {
            nullRows[i] |= !RawMemory.bit(col.validity, i);
          }
        }
      }
    }
    return true;
  }

  /**
   * After {@link #read}: groupIds[i] = the group whose stored key equals row i's, or for a miss {@code ~q} (a
   * negative) for the empty slot q that ended its probe sequence when {@code missSlots} (interning resumes
   * there), else -1; -1 for a row with a null. Needs a table that holds a group, none of whose indexed keys holds
   * a null.
   */
  static void find(ColumnLayout[] stored, boolean missSlots, HashSlots slots, int rowCount, int[] groupIds,
      ProbeScratch scratch) {
    final int mask = slots.mask();
    final int[] tags = scratch.tags;
    final boolean[] nullRows = scratch.nullRows;
    for (int i = 0; i < rowCount; i++) {
      if (nullRows[i]) {
        groupIds[i] = -1;
        continue;
      }
      int tag = tags[i];
      int p = tag & mask;
      int found;
      while (true) {
        long e = slots.get(p);
        if (e == 0) {
          found = missSlots ? ~p : -1;
          break;
        }
        if (HashSlots.entryTag(e) == tag && storedEquals(stored, HashSlots.entryId(e), scratch.columns, i)) {
          found = HashSlots.entryId(e);
          break;
        }
        p = (p + 1) & mask;
      }
      groupIds[i] = found;
    }
  }

  /**
   * After {@link #find} (or, for a table without groups, with every row at -1): interns the rows it did not find
   * as {@link GroupTable}'s general path would: new groups numbered from {@code groupCount} in order of first
   * appearance, their first rows in {@code newFirstRows}, each entered in {@code slots} but a row with a null,
   * whose group is its own. Returns how many groups the batch added; the caller stores their keys.
   */
  static int addNew(int columnCount, HashSlots slots, int rowCount, int groupCount, int[] groupIds,
      int[] newFirstRows, ProbeScratch scratch) {
    int misses = 0;
    for (int i = 0; i < rowCount; i++) {
      misses += groupIds[i] >>> 31;
    }
    if (misses == 0) {
      return 0;
    }
    // Grow before inserting, so the index never changes shape in the middle of a batch. Unless it grew, a miss
    // goes on from the empty slot its find ended at, past the older groups it already compared.
    int capacity = slots.capacity();
    slots.ensureFits((long) groupCount + misses);
    final boolean resumable = groupCount > 0 && slots.capacity() == capacity;
    final int mask = slots.mask();
    final int[] tags = scratch.tags;
    final boolean[] nullRows = scratch.nullRows;
    final long[][] columns = scratch.columns;
    int added = 0;
    for (int row = 0; row < rowCount; row++) {
      int found = groupIds[row];
      if (found >= 0) {
        continue;
      }
      if (nullRows[row]) {
        newFirstRows[added] = row;
        groupIds[row] = groupCount + added++;
        continue;
      }
      int tag = tags[row];
      int p = resumable ? ~found : tag & mask;
      while (true) {
        long e = slots.get(p);
        if (e == 0) {
          int id = groupCount + added;
          newFirstRows[added++] = row;
          slots.set(p, HashSlots.entry(tag, id));
          groupIds[row] = id;
          break;
        }
        // Only this batch's groups are left to compare (the find compared the older ones), by their first rows.
        int id = HashSlots.entryId(e);
        if (id >= groupCount && HashSlots.entryTag(e) == tag
            && rowsEqual(columns, columnCount, newFirstRows[id - groupCount], row)) {
          groupIds[row] = id;
          break;
        }
        p = (p + 1) & mask;
      }
    }
    return added;
  }

  private static boolean storedEquals(ColumnLayout[] stored, int id, long[][] columns, int row) {
    for (int c = 0; c < stored.length; c++) {
      ColumnLayout s = stored[c];
      long v = s.width == 8 ? RawMemory.getLong(s.data + 8L * id) : RawMemory.getInt(s.data + 4L * id);
      if (v != columns[c][row]) {
        return false;
      }
    }
    return true;
  }

  private static boolean rowsEqual(long[][] columns, int columnCount, int a, int b) {
    for (int c = 0; c < columnCount; c++) {
      if (columns[c][a] != columns[c][b]) {
        return false;
      }
    }
    return true;
  }
}
