package io.rowmatch.core.table;

import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongUnaryOperator;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Field;

import io.rowmatch.core.MultiColumnComparator;
import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;
import io.rowmatch.core.hash.RowHasher;

/**
 * Interns the key rows of incoming batches into dense group ids (0, 1, 2, ... in order of first
 * appearance across all batches), for aggregation and deduplication. New keys are appended to the table's
 * own Arrow key columns, handed out by {@link #keyColumns()} with row index = group id.
 *
 * <p>Probing is vectorized: hash every row, walk each row's probe sequence to its first tag-matching slot,
 * compare all candidates at once with {@link MultiColumnComparator#equalMany}, and send the rows whose
 * candidate differed round again from the next slot. Rows that reach an empty slot are new to the table;
 * they are placed in row order, compared against the groups this batch already added, so two rows with the
 * same new key get the same new id.
 *
 * <p>Key equality is exactly the comparator's under {@code nullsEqual}/{@code nansEqual}. A row that is not
 * equal to itself (a null in a column without {@code nullsEqual}, a NaN without {@code nansEqual}) can never
 * match: it gets a group of its own and stays out of the hash index.
 *
 * <p>All memory (key columns and hash index) comes from a child of the given allocator. At its limit, a
 * {@link TableMemoryException} names the limit, the table and its group count; the table then refuses
 * further batches but {@link #close()} still releases everything. Not thread-safe.
 */
public final class GroupTable implements AutoCloseable {
  private final String name;
  /** "GroupTable 'name'", for errors: made once, not on every batch checked. */
  private final String label;
  private final BufferAllocator allocator;
  private final boolean[] nullsEqual;
  private final boolean[] nansEqual;
  private final RowHasher hasher;
  /** Tests replace the hash to force collisions; identity in production. */
  private final LongUnaryOperator hashOverride;
  /** True when some key value can be unequal to itself, so new rows need a self-comparison. */
  private final boolean mayBeSelfUnequal;
  private final KeyColumns keys;
  private final HashSlots slots;
  /** One integral key column where null never matches: lookups take {@link FixedKeyLookup}'s fused loop. */
  private final boolean fixedKey;
  /**
   * One 4- or 8-byte integral key column (whatever its null rule): a batch with no null key interns through
   * {@link FixedKeyLookup#intern}, comparing values as longs instead of through a comparator. Its kind, or
   * {@link ColumnKind#NULL} for other key schemas.
   */
  private final int fixedInternKind;
  /** With {@link #fixedInternKind} and nulls equal: the group whose key is null, once a null key arrived; else -1. */
  private int nullGroup = -1;
  /**
   * Two or more 4- or 8-byte integral key columns: their kinds, for {@link FixedKeyColumns}; null for other key
   * schemas.
   */
  private final int[] fixedColumnKinds;
  /** A group whose key holds a null (in a column whose nulls are equal) is in the index: FixedKeyColumns stops. */
  private boolean nullKeysIndexed;
  /**
   * With {@link #fixedInternKind}: the index by value while the key's values span a small range (null: the hash
   * index {@link #slots} holds every group). Left for good, the slots rebuilt from the stored keys, by the first
   * batch it refuses or anything else that needs the slots ({@link #leaveDense}).
   */
  private DenseGroups dense;
  /** Batches interned through {@link FixedKeyLookup#intern} or {@link FixedKeyColumns} (for tests). */
  private int fixedInternBatches;
  private int groupCount;
  private String brokenBy;
  private boolean closed;

  private final ProbeScratch scratch = new ProbeScratch();

  /** keyFields: the key schema (types checked against every batch, names ignored). */
  public GroupTable(BufferAllocator allocator, List<Field> keyFields, boolean[] nullsEqual, boolean[] nansEqual,
      String name) {
    this(allocator, keyFields, nullsEqual, nansEqual, name, null);
  }

  GroupTable(BufferAllocator allocator, List<Field> keyFields, boolean[] nullsEqual, boolean[] nansEqual,
      String name, LongUnaryOperator hashOverride) {
    this(allocator, keyFields, nullsEqual, nansEqual, name, hashOverride, true);
  }

  /**
   * indexByValue false: the hash index from the start, for a table whose memory must shrink with its group count
   * (an aggregation's after it spilled: its partitions' keys span the same range, in fewer groups).
   */
  public GroupTable(BufferAllocator allocator, List<Field> keyFields, boolean[] nullsEqual, boolean[] nansEqual,
      String name, boolean indexByValue) {
    this(allocator, keyFields, nullsEqual, nansEqual, name, null, indexByValue);
  }

  /**
   * indexByValue: one integral key interns by value while its range allows ({@link DenseGroups}). A join's build
   * side does not: it is interned once and then indexed by value itself ({@link DenseKeyIndex}) or probed
   * through the hash index, which the index by value would have to be turned into first.
   */
  GroupTable(BufferAllocator allocator, List<Field> keyFields, boolean[] nullsEqual, boolean[] nansEqual,
      String name, LongUnaryOperator hashOverride, boolean indexByValue) {
    if (allocator == null || keyFields == null || nullsEqual == null || nansEqual == null) {
      throw new IllegalArgumentException("allocator, keyFields, nullsEqual and nansEqual must not be null");
    }
    if (nullsEqual.length != keyFields.size() || nansEqual.length != keyFields.size()) {
      throw new IllegalArgumentException("nullsEqual has " + nullsEqual.length + " flags and nansEqual has "
          + nansEqual.length + ", but there are " + keyFields.size() + " key columns");
    }
    this.name = name == null ? "group table" : name;
    this.label = "GroupTable '" + this.name + "'";
    this.nullsEqual = nullsEqual.clone();
    this.nansEqual = nansEqual.clone();
    this.hasher = new RowHasher(nansEqual);
    this.hashOverride = hashOverride;
    this.mayBeSelfUnequal = SelfEquality.mayBeSelfUnequal(keyFields, nullsEqual, nansEqual);
    this.allocator = allocator.newChildAllocator(this.name, 0, Long.MAX_VALUE);
    KeyColumns k = null;
    HashSlots s = null;
    try {
      k = new KeyColumns(this.allocator, keyFields);
      s = new HashSlots(this.allocator, 0);
    } catch (OutOfMemoryException e) {
      closeQuietly(k, s);
      throw TableMemoryException.of("GroupTable", this.name, this.allocator, 0, "groups", e);
    } catch (RuntimeException e) {
      closeQuietly(k, s);
      throw e;
    }
    this.keys = k;
    this.slots = s;
    int firstKind = keyFields.size() == 1 ? ColumnKind.of(k.vectors().get(0), "key column 0") : ColumnKind.NULL;
    this.fixedKey = keyFields.size() == 1 && FixedKeyLookup.applies(firstKind, nullsEqual[0]);
    this.fixedInternKind = FixedKeyLookup.isFixed(firstKind) ? firstKind : ColumnKind.NULL;
    int[] kinds = new int[keyFields.size()];
    for (int c = 0; c < kinds.length; c++) {
      kinds[c] = ColumnKind.of(k.vectors().get(c), "key column " + c);
    }
    this.fixedColumnKinds = FixedKeyColumns.applies(kinds) ? kinds : null;
    this.dense = indexByValue && fixedInternKind != ColumnKind.NULL && hashOverride == null
        ? new DenseGroups(this.allocator) : null;
  }

  private void closeQuietly(KeyColumns k, HashSlots s) {
    if (k != null) {
      k.close();
    }
    if (s != null) {
      s.close();
    }
    allocator.close();
  }

  /**
   * groupIds[i] = dense id of row i's key for i < rowCount; ids count 0,1,2,... in order of first appearance
   * across all batches. Returns how many groups this batch added; the batch rows where each new group first
   * appeared, in increasing row order, go to newGroupFirstRows[0..returned). Arrays must hold rowCount entries.
   */
  public int intern(List<? extends ValueVector> batchKeys, int rowCount, int[] groupIds, int[] newGroupFirstRows) {
    checkUsable();
    keys.check(batchKeys, rowCount, label);
    if (groupIds == null || newGroupFirstRows == null || groupIds.length < rowCount
        || newGroupFirstRows.length < rowCount) {
      throw new IllegalArgumentException("GroupTable '" + name + "': groupIds and newGroupFirstRows must hold "
          + rowCount + " entries");
    }
    if (rowCount == 0) {
      return 0;
    }
    try {
      // Integral key columns: compared as longs (FixedKeyLookup, FixedKeyColumns) unless the batch's nulls need
      // the comparator; the general path notes the null groups it indexed, which those paths must not take.
      ColumnLayout[] columns = fixedInternKind != ColumnKind.NULL || fixedColumnKinds != null ? layouts(batchKeys)
          : null;
      if (fixedInternKind != ColumnKind.NULL && columns[0].kind == fixedInternKind
          && FixedKeyLookup.noNulls(columns[0], rowCount)) {
        return internFixed(batchKeys, columns[0], rowCount, groupIds, newGroupFirstRows);
      }
      if (fixedColumnKinds != null && !nullKeysIndexed
          && FixedKeyColumns.read(columns, fixedColumnKinds, nullsEqual, hashOverride, rowCount, scratch)) {
        return internFixedColumns(batchKeys, rowCount, groupIds, newGroupFirstRows);
      }
      leaveDense();
      hashRows(batchKeys, rowCount, scratch);
      if (groupCount == 0) {
        java.util.Arrays.fill(groupIds, 0, rowCount, -1);
      } else {
        findExisting(batchKeys, rowCount, groupIds, scratch);
      }
      int added = addNew(batchKeys, rowCount, groupIds, newGroupFirstRows);
      if (fixedInternKind != ColumnKind.NULL && nullsEqual[0] && nullGroup < 0) {
        nullGroup = firstNullGroup(columns[0], rowCount, groupIds);
      }
      if (fixedColumnKinds != null && !nullKeysIndexed) {
        nullKeysIndexed = nullInEqualNullsColumn(columns, rowCount);
      }
      return added;
    } catch (OutOfMemoryException e) {
      brokenBy = "ran out of memory";
      throw TableMemoryException.of("GroupTable", name, allocator, groupCount, "groups", e);
    }
  }

  /**
   * groupIds[i] = the id of row i's key, or -1 when the table doesn't hold it; adds nothing. Safe to call from
   * several threads at once (each with its own scratch) while no thread interns.
   */
  void lookup(List<? extends ValueVector> batchKeys, int rowCount, int[] groupIds, ProbeScratch own) {
    checkUsable();
    keys.check(batchKeys, rowCount, label);
    if (dense != null) {
      throw new IllegalStateException(label + " is probed before spreadForProbing moved it to its hash index");
    }
    if (rowCount == 0) {
      return;
    }
    if (groupCount == 0) {
      java.util.Arrays.fill(groupIds, 0, rowCount, -1);
      return;
    }
    if (fixedKey && FixedKeyLookup.lookup(ColumnLayout.of(batchKeys.get(0), "key column 0 (probe)"),
        ColumnLayout.of(keys.vectors().get(0), "key column 0 (table)"), slots, hashOverride, rowCount, groupIds, own)) {
      return;
    }
    if (fixedColumnKinds != null && !nullKeysIndexed) {
      ColumnLayout[] columns = layouts(batchKeys);
      if (FixedKeyColumns.read(columns, fixedColumnKinds, nullsEqual, hashOverride, rowCount, own)) {
        FixedKeyColumns.find(storedLayouts(), false, slots, rowCount, groupIds, own);
        return;
      }
    }
    hashRows(batchKeys, rowCount, own);
    findExisting(batchKeys, rowCount, groupIds, own);
  }

  private static ColumnLayout[] layouts(List<? extends ValueVector> batchKeys) {
    ColumnLayout[] columns = new ColumnLayout[batchKeys.size()];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = ColumnLayout.of(batchKeys.get(c), "key column " + c);
    }
    return columns;
  }

  private ColumnLayout[] storedLayouts() {
    List<FieldVector> stored = keys.vectors();
    ColumnLayout[] columns = new ColumnLayout[stored.size()];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = ColumnLayout.of(stored.get(c), "key column " + c + " (table)");
    }
    return columns;
  }

  /** Whether rows [0, rowCount) hold a null in a column whose nulls are equal (such a group enters the index). */
  private boolean nullInEqualNullsColumn(ColumnLayout[] columns, int rowCount) {
    for (int c = 0; c < columns.length; c++) {
      if (nullsEqual[c] && !FixedKeyLookup.noNulls(columns[c], rowCount)) {
        return true;
      }
    }
    return false;
  }

  /** Checks a probe batch against the key schema as {@link #lookup} does, for lookups that bypass the hash. */
  void checkKeys(List<? extends ValueVector> batchKeys, int rowCount) {
    checkUsable();
    keys.check(batchKeys, rowCount, label);
  }

  private void hashRows(List<? extends ValueVector> batchKeys, int rowCount, ProbeScratch s) {
    s.ensure(rowCount);
    long[] hashes = s.hashes;
    hasher.hash(batchKeys, rowCount, hashes);
    if (hashOverride != null) {
      for (int i = 0; i < rowCount; i++) {
        hashes[i] = hashOverride.applyAsLong(hashes[i]);
      }
    }
    int[] tags = s.tags;
    for (int i = 0; i < rowCount; i++) {
      tags[i] = HashSlots.tag(hashes[i]);
    }
  }

  /** Rounds of vectorized probing against the groups of earlier batches; misses get -1. */
  private void findExisting(List<? extends ValueVector> batchKeys, int rowCount, int[] groupIds, ProbeScratch s) {
    final int[] tags = s.tags;
    final int[] pendRows = s.pendRows;
    final int[] pendPositions = s.pendPositions;
    final int[] candRows = s.candRows;
    final int[] candGroups = s.candGroups;
    final int[] candPositions = s.candPositions;
    final boolean[] equal = s.equal;
    int mask = slots.mask();
    int pending = rowCount;
    for (int i = 0; i < rowCount; i++) {
      pendRows[i] = i;
      pendPositions[i] = tags[i] & mask;
    }
    try (MultiColumnComparator cmp = MultiColumnComparator.build(batchKeys, keys.vectors(), nullsEqual,
        nansEqual)) {
      while (pending > 0) {
        int cands = 0;
        for (int k = 0; k < pending; k++) {
          int row = pendRows[k];
          int tag = tags[row];
          int p = pendPositions[k];
          while (true) {
            long e = slots.get(p);
            if (e == 0) {
              groupIds[row] = -1;
              break;
            }
            if (HashSlots.entryTag(e) == tag) {
              candRows[cands] = row;
              candGroups[cands] = HashSlots.entryId(e);
              candPositions[cands] = p;
              cands++;
              break;
            }
            p = (p + 1) & mask;
          }
        }
        cmp.equalMany(candRows, candGroups, cands, equal);
        pending = 0;
        for (int k = 0; k < cands; k++) {
          if (equal[k]) {
            groupIds[candRows[k]] = candGroups[k];
          } else {
            pendRows[pending] = candRows[k];
            pendPositions[pending] = (candPositions[k] + 1) & mask;
            pending++;
          }
        }
      }
    }
  }

  /**
   * Rows still at -1, in row order: a group this batch already added, or a new one. Only groups added by this
   * batch need comparing: phase one compared every older group on the row's probe sequence.
   */
  private int addNew(List<? extends ValueVector> batchKeys, int rowCount, int[] groupIds, int[] newFirstRows) {
    final int[] tags = scratch.tags;
    int misses = 0;
    for (int i = 0; i < rowCount; i++) {
      if (groupIds[i] < 0) {
        misses++;
      }
    }
    if (misses == 0) {
      return 0;
    }
    // Grow before inserting, so the index never changes shape in the middle of a batch.
    slots.ensureFits((long) groupCount + misses);
    int base = groupCount;
    int added = 0;
    int mask = slots.mask();
    boolean broken = true;
    try (MultiColumnComparator self = MultiColumnComparator.build(batchKeys, batchKeys, nullsEqual, nansEqual)) {
      for (int row = 0; row < rowCount; row++) {
        if (groupIds[row] >= 0) {
          continue;
        }
        if (mayBeSelfUnequal && !self.equal(row, row)) {
          newFirstRows[added] = row;
          groupIds[row] = base + added++;
          continue;
        }
        int tag = tags[row];
        int p = tag & mask;
        while (true) {
          long e = slots.get(p);
          if (e == 0) {
            int id = base + added;
            newFirstRows[added++] = row;
            slots.set(p, HashSlots.entry(tag, id));
            groupIds[row] = id;
            break;
          }
          int id = HashSlots.entryId(e);
          if (id >= base && HashSlots.entryTag(e) == tag && self.equal(row, newFirstRows[id - base])) {
            groupIds[row] = id;
            break;
          }
          p = (p + 1) & mask;
        }
      }
      keys.append(batchKeys, newFirstRows, added);
      groupCount = base + added;
      broken = false;
    } finally {
      if (broken) {
        // The index may name groups whose keys were never stored.
        brokenBy = brokenBy == null ? "failed while adding groups" : brokenBy;
      }
    }
    return added;
  }

  /** A batch of one integral key column without nulls: {@link FixedKeyLookup#intern}, then its new keys stored. */
  private int internFixed(List<? extends ValueVector> batchKeys, ColumnLayout batch, int rowCount, int[] groupIds,
      int[] newFirstRows) {
    if (dense != null) {
      scratch.ensureColumns(1, rowCount);
      int added = dense.intern(batch, rowCount, groupCount, groupIds, newFirstRows, scratch.columns[0]);
      if (added >= 0) {
        addFused(batchKeys, newFirstRows, () -> added);
        if (dense.tooSparse(groupCount)) {
          leaveDense();
        }
        return added;
      }
      leaveDense(); // refused: nothing was written
    }
    ColumnLayout stored = ColumnLayout.of(keys.vectors().get(0), "key column 0 (table)");
    return addFused(batchKeys, newFirstRows, () -> FixedKeyLookup.intern(batch, stored, nullGroup, slots,
        hashOverride, rowCount, groupCount, groupIds, newFirstRows, scratch));
  }

  /**
   * Moves the table from its index by value to the hash index for good: every stored key entered in the slots
   * under its hash (as {@link FixedKeyLookup#intern} enters them; the keys are distinct, so none is compared).
   */
  private void leaveDense() {
    if (dense == null) {
      return;
    }
    dense.close();
    dense = null;
    if (groupCount == 0) {
      return;
    }
    FixedKeyLookup.index(ColumnLayout.of(keys.vectors().get(0), "key column 0 (table)"), groupCount, slots,
        hashOverride);
  }

  /** A batch {@link FixedKeyColumns#read} took (into the scratch): found, then added, then its new keys stored. */
  private int internFixedColumns(List<? extends ValueVector> batchKeys, int rowCount, int[] groupIds,
      int[] newFirstRows) {
    if (groupCount == 0) {
      java.util.Arrays.fill(groupIds, 0, rowCount, -1);
    } else {
      FixedKeyColumns.find(storedLayouts(), true, slots, rowCount, groupIds, scratch);
    }
    return addFused(batchKeys, newFirstRows, () -> FixedKeyColumns.addNew(fixedColumnKinds.length, slots,
        rowCount, groupCount, groupIds, newFirstRows, scratch));
  }

  /** Runs a fused path's insert (new groups into the index; returns how many), then stores their keys. */
  private int addFused(List<? extends ValueVector> batchKeys, int[] newFirstRows, IntSupplier insert) {
    fixedInternBatches++;
    boolean broken = true;
    try {
      int added = insert.getAsInt();
      if (added > 0) {
        keys.append(batchKeys, newFirstRows, added);
        groupCount += added;
      }
      broken = false;
      return added;
    } finally {
      if (broken) {
        // The index may name groups whose keys were never stored.
        brokenBy = brokenBy == null ? "failed while adding groups" : brokenBy;
      }
    }
  }

  /** The group of the batch's first null key (a null never equals a value here), or -1 when none is null. */
  private static int firstNullGroup(ColumnLayout batch, int rowCount, int[] groupIds) {
    for (int row = 0; row < rowCount; row++) {
      if (batch.allNull || (batch.validity != 0 && !RawMemory.bit(batch.validity, row))) {
        return groupIds[row];
      }
    }
    return -1;
  }

  private void checkUsable() {
    if (closed) {
      throw new IllegalStateException("GroupTable '" + name + "' is closed");
    }
    if (brokenBy != null) {
      throw new IllegalStateException("GroupTable '" + name + "' " + brokenBy
          + " in an earlier batch and can only be closed");
    }
  }

  /**
   * Lowers the load of a small table that will only be probed from now on (a join's build side), so probes
   * for absent keys rarely walk; see {@code HashSlots.spreadForProbing}. Answers are unchanged.
   */
  public void spreadForProbing() {
    leaveDense();
    slots.spreadForProbing(groupCount());
  }

  /** Whether the table still interns by value ({@link DenseGroups}; for tests). */
  boolean denseIndexed() {
    return dense != null;
  }

  int fixedInternBatches() {
    return fixedInternBatches;
  }

  /** Slots of the table's index (for tests of its load). */
  int slotCapacity() {
    leaveDense();
    return slots.capacity();
  }

  public int groupCount() {
    return groupCount;
  }

  /** The stored key columns: groupCount() rows, row index = group id. Owned by the table (valid until close). */
  public List<FieldVector> keyColumns() {
    if (closed) {
      throw new IllegalStateException("GroupTable '" + name + "' is closed");
    }
    return keys.vectors();
  }

  /** Bytes currently allocated by the table. */
  public long allocatedBytes() {
    return closed ? 0 : allocator.getAllocatedMemory();
  }

  public String name() {
    return name;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (dense != null) {
      dense.close();
    }
    keys.close();
    slots.close();
    allocator.close();
  }
}
