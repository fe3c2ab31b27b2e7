package io.rowmatch.spark.aggregate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.core.table.GroupTable;
import io.rowmatch.spark.arrow.DeferredGatherVector;

/**
 * Grouping keys that all come from broadcast build sides, still as build row numbers ({@link DeferredGatherVector}):
 * rows with the same build rows have the same key, so a batch is first grouped by its build row numbers (a few int
 * columns, interned as integral keys without reading a value), and only each new combination's key values are
 * gathered and interned in the aggregation's own table. A star join grouped by dimension columns (TPC-DS's i_brand,
 * i_category, d_year) then hashes and compares an int or two per row, where it gathered and compared every key
 * value. Group ids come out exactly as interning the values would give them (each new key at its first row), so
 * the aggregate's kernels see no difference.
 *
 * <p>The combinations are numbered against the build sides' vectors: another build side (a chunked join's next
 * chunk) starts them again, as does a table the caller dropped (a spill). When combinations turn out to be nearly
 * as many as the rows, the path gives up and the caller interns values directly.
 */
public final class BuildRowGroups implements AutoCloseable {
  /** Rows seen before judging whether combinations repeat enough; tests lower it. */
  public static volatile long trialRows = 1 << 16;
  /** Batches grouped this way in this JVM (tests check the path ran). */
  private static final AtomicLong BATCHES = new AtomicLong();

  private final BufferAllocator allocator;
  private final String name;
  /** The combinations of build rows seen, over the distinct row-number columns. */
  private GroupTable combos;
  /** The key columns' sources the combinations are numbered against (compared by identity). */
  private ValueVector[] sources;
  /** The aggregation table's group of each combination. */
  private int[] groupOfCombo = new int[64];
  private int[] comboIds = new int[0];
  private int[] firstRows = new int[0];
  private int[] keyGroups = new int[0];
  private int[] keyFirstRows = new int[0];
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();
  private long rows;
  private boolean givenUp;

  BuildRowGroups(BufferAllocator allocator, String name) {
    this.allocator = allocator;
    this.name = name;
  }

  public static long batches() {
    return BATCHES.get();
  }

  /** The batch's key columns as deferred build columns without null rows, or null when one is not (or gave up). */
  DeferredGatherVector[] keys(ColumnarBatch batch, int[] keyOrdinals) {
    if (givenUp || keyOrdinals.length == 0) {
      return null;
    }
    DeferredGatherVector[] keys = new DeferredGatherVector[keyOrdinals.length];
    for (int k = 0; k < keys.length; k++) {
      if (!(batch.column(keyOrdinals[k]) instanceof DeferredGatherVector d) || d.hasNullRows()) {
        return null;
      }
      keys[k] = d;
    }
    return keys;
  }

  /** The key columns' fields, for the aggregation's table. */
  static List<Field> fields(DeferredGatherVector[] keys) {
    List<Field> fields = new ArrayList<>(keys.length);
    for (DeferredGatherVector d : keys) {
      fields.add(d.field());
    }
    return fields;
  }

  /** groupIds[0..n) = each row's group in {@code table}, which its new keys are interned into. */
  void intern(DeferredGatherVector[] keys, int n, GroupTable table, int[] groupIds) {
    List<int[]> distinct = new ArrayList<>();
    ValueVector[] src = new ValueVector[keys.length];
    for (int k = 0; k < keys.length; k++) {
      src[k] = keys[k].source();
      int[] r = keys[k].rows();
      boolean seen = false;
      for (int[] d : distinct) {
        seen |= d == r || Arrays.equals(d, 0, n, r, 0, n);
      }
      if (!seen) {
        distinct.add(r);
      }
    }
    if (combos != null && (!sameSources(src) || combos.keyColumns().size() != distinct.size())) {
      reset();
    }
    if (combos == null) {
      List<Field> fields = new ArrayList<>();
      for (int j = 0; j < distinct.size(); j++) {
        fields.add(Field.notNullable("build_row_" + j, new ArrowType.Int(32, true)));
      }
      boolean[] never = new boolean[distinct.size()];
      combos = new GroupTable(allocator, fields, never, never.clone(), name + " build rows");
      sources = src;
    }
    if (comboIds.length < n) {
      comboIds = new int[n];
      firstRows = new int[n];
    }
    int before = combos.groupCount();
    int added = internRows(distinct, n);
    if (added > 0) {
      internNewKeys(keys, before, added, table);
    }
    for (int i = 0; i < n; i++) {
      groupIds[i] = groupOfCombo[comboIds[i]];
    }
    BATCHES.incrementAndGet();
    rows += n;
    if (rows >= trialRows && 2L * combos.groupCount() > rows) {
      givenUp = true; // nearly a combination per row: interning the values directly costs less
      reset();
    }
  }

  /** Interns the batch's build row numbers; returns how many new combinations it added (firstRows: where). */
  private int internRows(List<int[]> distinct, int n) {
    List<IntVector> columns = new ArrayList<>(distinct.size());
    try {
      for (int j = 0; j < distinct.size(); j++) {
        IntVector v = new IntVector("build_row_" + j, allocator);
        columns.add(v);
        v.allocateNew(n);
        int[] r = distinct.get(j);
        for (int i = 0; i < n; i++) {
          v.set(i, r[i]);
        }
        v.setValueCount(n);
      }
      return combos.intern(columns, n, comboIds, firstRows);
    } finally {
      for (IntVector v : columns) {
        v.close();
      }
    }
  }

  /** The key values at the first rows of combinations before..before+added, interned into the table. */
  private void internNewKeys(DeferredGatherVector[] keys, int before, int added, GroupTable table) {
    if (groupOfCombo.length < before + added) {
      groupOfCombo = Arrays.copyOf(groupOfCombo, Math.max(before + added, 2 * groupOfCombo.length));
    }
    if (keyGroups.length < added) {
      keyGroups = new int[added];
      keyFirstRows = new int[added];
    }
    List<FieldVector> values = new ArrayList<>(keys.length);
    try {
      int[] at = new int[added];
      for (DeferredGatherVector d : keys) {
        int[] r = d.rows();
        for (int j = 0; j < added; j++) {
          at[j] = r[firstRows[j]];
        }
        FieldVector v = d.field().createVector(allocator);
        values.add(v);
        ArrowCopy.gather(d.source(), at, added, v, scratch);
      }
      table.intern(values, added, keyGroups, keyFirstRows);
    } finally {
      for (FieldVector v : values) {
        v.close();
      }
    }
    System.arraycopy(keyGroups, 0, groupOfCombo, before, added);
  }

  private boolean sameSources(ValueVector[] src) {
    if (sources == null || sources.length != src.length) {
      return false;
    }
    for (int k = 0; k < src.length; k++) {
      if (sources[k] != src[k]) {
        return false;
      }
    }
    return true;
  }

  /** Forgets the combinations (the caller's table was dropped, or the build side changed). */
  void reset() {
    if (combos != null) {
      combos.close();
      combos = null;
    }
    sources = null;
  }

  @Override
  public void close() {
    reset();
  }
}
