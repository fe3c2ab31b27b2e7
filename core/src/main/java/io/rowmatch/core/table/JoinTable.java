package io.rowmatch.core.table;

import java.util.List;
import java.util.function.LongUnaryOperator;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Field;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.RawMemory;

/**
 * The build side of a hash equi-join. Build batches of key columns go in with {@link #addBatch}; every build
 * row gets a dense build row id (0, 1, 2, ... across batches; the caller keeps the payload and maps ids back
 * to its batches with the first id each call returns). After {@link #finish()}, {@link #newProbe()} gives a
 * {@link JoinProbe} that finds, for each row of a probe batch, the build rows with an equal key, and hands
 * the (probe row, build row) pairs out in bounded chunks.
 *
 * <p>Inside, the build keys are interned into a {@link GroupTable} (only distinct keys are stored and
 * compared), and build rows are laid out grouped by key (counting sort), so a probe row compares its key
 * once and then streams its matches. Keys follow Spark's join rules through the comparator: a null key
 * never matches unless its column is null-safe ({@code nullsEqual[c]}), NaN matches NaN iff
 * {@code nansEqual[c]}. Build rows that can never match stay out of the index but still count as unmatched
 * build rows.
 *
 * <p>How a Spark operator produces each join type, with probe = streamed side, build = this table:
 * <ul>
 *   <li>inner: the pairs;
 *   <li>probe-side outer (left outer with build right, right outer with build left): the pairs, plus each
 *       probe row with {@link JoinProbe#hasMatch} false padded with nulls;
 *   <li>build-side outer (the other outer case) and full outer: the pairs (plus unmatched probe rows for
 *       full), and after the last probe batch {@link #unmatchedBuildRows} padded with nulls;
 *   <li>left semi / left anti (probe = left): probe rows with {@link JoinProbe#hasMatch} true / false, no
 *       pairs needed.
 * </ul>
 *
 * <p>All memory (keys, index, per-row ids, matched flags) comes from a child of the given allocator; at its
 * limit a {@link TableMemoryException} names the limit, the table and its build row count, and
 * {@link #close()} still releases everything. Building is single-threaded; after {@link #finish()} several
 * threads may probe at once, each with its own {@link JoinProbe} (matched flags are idempotent byte stores).
 */
public final class JoinTable implements AutoCloseable {
  private final String name;
  private final BufferAllocator allocator;
  private final GroupTable keys;
  /** One integral key where null never matches, real hashes: finish() may add a {@link DenseKeyIndex}. */
  private final boolean denseCandidate;
  /** After finish, when the keys span a small range: probes look keys up here instead of hashing. */
  private DenseKeyIndex dense;
  /** Per build row: its key's group id (freed at finish when every build key is unique). */
  private ArrowInts groupOfRow;
  private int buildRows;
  /**
   * After finish: every build row has its own key group. Groups are numbered in order of first appearance,
   * so then group id == build row id and the per-row layout below is not needed (the common primary-key
   * build side: one memory access less per match, 8 bytes less per row).
   */
  private boolean uniqueKeys;
  /** After finish: build rows ordered by group; group g's rows are rowsByGroup[groupStart[g] .. groupStart[g+1]). */
  private ArrowInts rowsByGroup;
  private ArrowInts groupStart;
  /**
   * After {@link #orderRowsWithinKeys}: the band column, each group-layout index's band value (as rowsByGroup), and
   * per group the end of its rows with a value (the rows whose value is null follow it).
   */
  private ValueVector bandColumn;
  private ArrowInts bandValues;
  private ArrowInts bandEnd;
  /** After finish: one byte per group, set when a probe row matched it. */
  private ArrowBuf matched;
  private int[] groupScratch = new int[0];
  private int[] firstScratch = new int[0];
  private boolean finished;
  private boolean closed;
  private String brokenBy;

  public JoinTable(BufferAllocator allocator, List<Field> keyFields, boolean[] nullsEqual, boolean[] nansEqual,
      String name) {
    this(allocator, keyFields, nullsEqual, nansEqual, name, null);
  }

  JoinTable(BufferAllocator allocator, List<Field> keyFields, boolean[] nullsEqual, boolean[] nansEqual,
      String name, LongUnaryOperator hashOverride) {
    if (allocator == null) {
      throw new IllegalArgumentException("allocator must not be null");
    }
    this.name = name == null ? "join table" : name;
    // Tests that force hash collisions (hashOverride) mean to exercise the hash path: no dense index then.
    this.denseCandidate = hashOverride == null && keyFields != null && keyFields.size() == 1 && nullsEqual != null
        && nullsEqual.length == 1 && !nullsEqual[0];
    this.allocator = allocator.newChildAllocator(this.name, 0, Long.MAX_VALUE);
    GroupTable k = null;
    try {
      k = new GroupTable(this.allocator, keyFields, nullsEqual, nansEqual, this.name + " keys", hashOverride, false);
      this.groupOfRow = new ArrowInts(this.allocator, 1024);
    } catch (OutOfMemoryException e) {
      if (k != null) {
        k.close();
      }
      this.allocator.close();
      throw TableMemoryException.of("JoinTable", this.name, allocator, 0, "build rows", e);
    } catch (RuntimeException e) {
      if (k != null) {
        k.close();
      }
      this.allocator.close();
      throw e;
    }
    this.keys = k;
  }

  /**
   * Adds rows [0, rowCount) of a build batch. Returns the build row id of the batch's first row; its rows
   * get consecutive ids.
   *
   * @throws IllegalArgumentException naming the column when the batch doesn't fit the key schema
   */
  public int addBatch(List<? extends ValueVector> batchKeys, int rowCount) {
    checkUsable();
    if (finished) {
      throw new IllegalStateException("JoinTable '" + name + "' is finished; no more build batches");
    }
    int first = buildRows;
    if ((long) first + rowCount > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("JoinTable '" + name + "' would hold more than " + (Integer.MAX_VALUE - 8)
          + " build rows");
    }
    if (groupScratch.length < rowCount) {
      groupScratch = new int[rowCount];
      firstScratch = new int[rowCount];
    }
    try {
      keys.intern(batchKeys, rowCount, groupScratch, firstScratch);
      groupOfRow.append(groupScratch, rowCount);
      buildRows += rowCount;
    } catch (OutOfMemoryException e) {
      brokenBy = "ran out of memory";
      throw TableMemoryException.of("JoinTable", name, allocator, buildRows, "build rows", e);
    }
    return first;
  }

  /** Slots of the key table's hash index (for tests of its load). */
  int slotCapacity() {
    return keys.slotCapacity();
  }

  /** Ends the build: lays build rows out by key. Probing needs it; adding batches after it is an error. */
  public void finish() {
    checkUsable();
    if (finished) {
      return;
    }
    int groups = keys.groupCount();
    int rows = buildRows;
    try {
      if (denseCandidate) {
        dense = DenseKeyIndex.tryBuild(allocator, keys.keyColumns().get(0), groups);
      }
      if (dense == null) {
        keys.spreadForProbing();
      }
      matched = allocator.buffer(Math.max(1, groups));
      matched.setZero(0, matched.capacity());
      if (groups == rows) {
        uniqueKeys = true;
        groupOfRow.close();
        groupOfRow = null;
        finished = true;
        return;
      }
      groupStart = new ArrowInts(allocator, groups + 1);
      groupStart.resize(groups + 1);
      groupStart.fill(0);
      for (int r = 0; r < rows; r++) {
        int g = groupOfRow.get(r) + 1;
        groupStart.set(g, groupStart.get(g) + 1);
      }
      for (int g = 0; g < groups; g++) {
        groupStart.set(g + 1, groupStart.get(g + 1) + groupStart.get(g));
      }
      rowsByGroup = new ArrowInts(allocator, rows);
      rowsByGroup.resize(rows);
      // Fill each group's range in row order with a write cursor per group (released right after).
      try (ArrowInts cursor = new ArrowInts(allocator, groups)) {
        cursor.resize(groups);
        for (int g = 0; g < groups; g++) {
          cursor.set(g, groupStart.get(g));
        }
        for (int r = 0; r < rows; r++) {
          int g = groupOfRow.get(r);
          int at = cursor.get(g);
          rowsByGroup.set(at, r);
          cursor.set(g, at + 1);
        }
      }
    } catch (OutOfMemoryException e) {
      brokenBy = "ran out of memory";
      throw TableMemoryException.of("JoinTable", name, allocator, rows, "build rows", e);
    }
    finished = true;
    groupScratch = new int[0];
    firstScratch = new int[0];
  }

  /**
   * Orders each key's build rows by {@code column} (one more column of the build rows, row r of it build row r; a
   * 4-byte integral one: int, date), rows whose value is null last, so that {@link JoinProbe#narrowToBand} can keep
   * a probe row's pairs to the run of its key's rows a comparison with its own value may pass: a join whose
   * condition compares two such columns (TPC-DS q72's {@code inv_quantity_on_hand < cs_quantity}) then meets the
   * pairs that pass instead of every pair with equal keys. Pairs then come in this order instead of build row order.
   * Returns false, doing nothing, when every build key is unique (a probe row meets at most one build row). A second
   * call with the same column does nothing.
   *
   * @throws IllegalArgumentException naming the column when it is not of a 4-byte integral type or holds fewer
   *     values than the table has build rows
   * @throws IllegalStateException when the table is not finished or was ordered by another column
   */
  public boolean orderRowsWithinKeys(ValueVector column) {
    checkFinished();
    if (uniqueKeys) {
      return false;
    }
    if (bandColumn != null) {
      if (bandColumn == column) {
        return true;
      }
      throw new IllegalStateException("JoinTable '" + name + "' is already ordered by another band column");
    }
    ColumnLayout band = bandLayout(column, "of table '" + name + "'", buildRows, "build rows");
    int groups = keys.groupCount();
    ArrowInts values = null;
    ArrowInts ends = null;
    try {
      values = new ArrowInts(allocator, Math.max(1, buildRows));
      values.resize(buildRows);
      values.fill(0);
      ends = new ArrowInts(allocator, Math.max(1, groups));
      ends.resize(groups);
      int widest = 0;
      for (int g = 0; g < groups; g++) {
        widest = Math.max(widest, groupStart.get(g + 1) - groupStart.get(g));
      }
      // A group's rows with a value as (value << 32 | row): sorted as longs, by value, then row.
      long[] sorted = new long[widest];
      int[] nullRows = new int[widest];
      for (int g = 0; g < groups; g++) {
        int start = groupStart.get(g);
        int end = groupStart.get(g + 1);
        int valued = 0;
        int nulls = 0;
        for (int i = start; i < end; i++) {
          int r = rowsByGroup.get(i);
          if (band.allNull || !band.isValid(r)) {
            nullRows[nulls++] = r;
          } else {
            sorted[valued++] = ((long) RawMemory.getInt(band.data + 4L * r) << 32) | (r & 0xFFFFFFFFL);
          }
        }
        java.util.Arrays.sort(sorted, 0, valued);
        for (int j = 0; j < valued; j++) {
          rowsByGroup.set(start + j, (int) sorted[j]);
          values.set(start + j, (int) (sorted[j] >> 32));
        }
        for (int j = 0; j < nulls; j++) {
          rowsByGroup.set(start + valued + j, nullRows[j]);
        }
        ends.set(g, start + valued);
      }
    } catch (OutOfMemoryException e) {
      if (values != null) {
        values.close();
      }
      if (ends != null) {
        ends.close();
      }
      brokenBy = "ran out of memory";
      throw TableMemoryException.of("JoinTable", name, allocator, buildRows, "build rows", e);
    }
    bandColumn = column;
    bandValues = values;
    bandEnd = ends;
    return true;
  }

  /** A prober for this finished table; one per thread, reusable across probe batches. */
  public JoinProbe newProbe() {
    checkUsable();
    if (!finished) {
      throw new IllegalStateException("JoinTable '" + name + "' must be finished before probing");
    }
    return new JoinProbe(this);
  }

  public int buildRowCount() {
    return buildRows;
  }

  /** Distinct build keys (build rows that can never match each count as their own key). */
  public int distinctKeyCount() {
    return keys.groupCount();
  }

  /** True when some probe row so far matched build row {@code buildRow}. */
  public boolean buildRowMatched(int buildRow) {
    checkFinished();
    checkBuildRow(buildRow);
    return MemoryUtil.getByte(matched.memoryAddress() + groupOfRow(buildRow)) != 0;
  }

  /**
   * Writes to {@code out} the build rows {@code >= fromRow} that no probe row matched, in increasing order,
   * as many as fit; returns how many. Resume with {@code fromRow = out[count - 1] + 1}; 0 means none left.
   */
  public int unmatchedBuildRows(int fromRow, int[] out) {
    checkFinished();
    if (fromRow < 0) {
      throw new IndexOutOfBoundsException("fromRow " + fromRow + " is negative");
    }
    int rows = buildRows;
    long m = matched.memoryAddress();
    int n = 0;
    for (int r = fromRow; r < rows && n < out.length; r++) {
      if (MemoryUtil.getByte(m + groupOfRow(r)) == 0) {
        out[n++] = r;
      }
    }
    return n;
  }

  /** The stored distinct build keys (row index = key group id); valid until close. */
  public List<FieldVector> keyColumns() {
    return keys.keyColumns();
  }

  public long allocatedBytes() {
    return closed ? 0 : allocator.getAllocatedMemory();
  }

  public String name() {
    return name;
  }

  // ---- for JoinProbe ----

  GroupTable keys() {
    return keys;
  }

  /** The direct-address index, or null when probes hash. */
  DenseKeyIndex dense() {
    return dense;
  }

  private int groupOfRow(int row) {
    return uniqueKeys ? row : groupOfRow.get(row);
  }

  /** After finish: every build key is distinct, so group g is build row g (a dimension table's surrogate keys). */
  boolean uniqueKeys() {
    return uniqueKeys;
  }

  /** Group g's build rows are rowByGroupIndex(i) for groupStart(g) <= i < groupStart(g + 1). */
  int groupStart(int group) {
    return uniqueKeys ? group : groupStart.get(group);
  }

  int rowByGroupIndex(int index) {
    return uniqueKeys ? index : rowsByGroup.get(index);
  }

  /**
   * A band column's layout (one side's values compared with the other's): 4-byte integral (int, date) and holding at
   * least {@code rows} values, else IllegalArgumentException naming it ({@code side}) and the rows ({@code what}).
   */
  static ColumnLayout bandLayout(ValueVector column, String side, int rows, String what) {
    String name = "band column " + (column == null ? "null" : column.getField()) + " " + side;
    ColumnLayout layout = ColumnLayout.of(column, name);
    if (!layout.allNull && layout.kind != ColumnKind.FIXED4) {
      throw new IllegalArgumentException(name + ": only a 4-byte integral column (int, date) is a band");
    }
    if (column.getValueCount() < rows) {
      throw new IllegalArgumentException(name + " holds " + column.getValueCount() + " values for " + rows + " " + what);
    }
    return layout;
  }

  /** Whether {@link #orderRowsWithinKeys} ordered the rows (then {@link #bandValue} and {@link #bandEnd} answer). */
  boolean bandOrdered() {
    return bandValues != null;
  }

  /** The band value of the row at group-layout index {@code index} (one with a value). */
  int bandValue(int index) {
    return bandValues.get(index);
  }

  /** The end of group g's rows with a band value: [groupStart(g), bandEnd(g)). */
  int bandEnd(int group) {
    return bandEnd.get(group);
  }

  void markMatched(int group) {
    MemoryUtil.putByte(matched.memoryAddress() + group, (byte) 1);
  }

  void checkFinished() {
    checkUsable();
    if (!finished) {
      throw new IllegalStateException("JoinTable '" + name + "' is not finished");
    }
  }

  private void checkBuildRow(int row) {
    if (row < 0 || row >= buildRows) {
      throw new IndexOutOfBoundsException("build row " + row + " outside [0, " + buildRows + ")");
    }
  }

  private void checkUsable() {
    if (closed) {
      throw new IllegalStateException("JoinTable '" + name + "' is closed");
    }
    if (brokenBy != null) {
      throw new IllegalStateException("JoinTable '" + name + "' " + brokenBy + " earlier and can only be closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    keys.close();
    if (dense != null) {
      dense.close();
    }
    if (groupOfRow != null) {
      groupOfRow.close();
    }
    if (rowsByGroup != null) {
      rowsByGroup.close();
    }
    if (bandValues != null) {
      bandValues.close();
      bandEnd.close();
    }
    if (groupStart != null) {
      groupStart.close();
    }
    if (matched != null) {
      matched.close();
    }
    allocator.close();
  }
}
