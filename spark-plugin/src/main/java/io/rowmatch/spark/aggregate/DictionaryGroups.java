package io.rowmatch.spark.aggregate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.execution.vectorized.Dictionary;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.core.table.GroupTable;
import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.SparkColumnMemory;

/**
 * Grouping keys that a vectorized Parquet scan hands over dictionary-encoded, grouped by dictionary id: each row's
 * ids (one per key column, a null as one more id) make one number, and a table from that number to the group
 * answers every row after the first of its combination. Only the first row of each new combination is interned
 * into the {@link GroupTable}, with its real key values, so equal values under different ids (a dictionary may
 * repeat a value) and every equality rule of the table (NaN, -0.0) still meet in one group, numbered in order of
 * first appearance as the table would number them. TPC-H q1 groups 6M rows by two one-letter strings: each row
 * was copied into Arrow, hashed and compared byte by byte; here it is two id loads and one table load.
 *
 * <p>A batch qualifies when every key column is a scan column whose batch is dictionary-encoded (Spark's reader
 * decodes a batch whose pages are not) and the combinations number at most {@link #MAX_COMBINATIONS}; the table
 * holds while every key column's dictionary is the same (a Parquet column chunk). Other batches take the general
 * path into the same GroupTable; {@link #reset} forgets everything when the table is replaced (a spill).
 */
public final class DictionaryGroups {
  static final int MAX_COMBINATIONS = 1 << 16;
  /** Rows grouped by dictionary id in this JVM (tests check that a dictionary-encoded scan takes this path). */
  private static final AtomicLong ROWS = new AtomicLong();

  private final int[] keyOrdinals;
  /** Per key column, the dictionary the table below answers for (null: none yet). */
  private Object[] identities;
  private int[] strides;
  /** Per combination of ids, its group, or -1 (not seen yet). */
  private int[] groupOf = new int[0];
  private int[] combos = new int[0];
  private int[] firstRows = new int[0];
  private int[] firstGroups = new int[0];
  private int[] firstNew = new int[0];

  DictionaryGroups(int[] keyOrdinals) {
    this.keyOrdinals = keyOrdinals.clone();
  }

  /** Rows grouped by dictionary id so far in this JVM. */
  public static long rowsGrouped() {
    return ROWS.get();
  }

  /** Forgets the groups: the table they belong to was replaced. */
  void reset() {
    identities = null;
  }

  /**
   * The key columns of this batch as their scans' dictionaries and ids, or null when one is not (then the batch
   * takes the general path).
   */
  private static Encoded[] encoded(ColumnarBatch batch, int[] keyOrdinals) {
    if (!SparkColumnMemory.AVAILABLE) {
      return null;
    }
    Encoded[] out = new Encoded[keyOrdinals.length];
    for (int k = 0; k < out.length; k++) {
      if (!(batch.column(keyOrdinals[k]) instanceof ConvertOnReadColumn c) || !(c.source() instanceof OnHeapColumnVector h)
          || !h.hasDictionary() || !(h.getDictionaryIds() instanceof OnHeapColumnVector ids)) {
        return null;
      }
      Dictionary d = SparkColumnMemory.dictionary(h);
      int size = SparkColumnMemory.dictionaryEntries(d);
      if (size <= 0) {
        return null;
      }
      out[k] = new Encoded(c, SparkColumnMemory.dictionarySource(d), size, SparkColumnMemory.ints(ids),
          h.hasNull() ? SparkColumnMemory.nulls(h) : null, c.sourceRowsOrNull());
    }
    return out;
  }

  /** One key column: its dictionary (identity, entries) and each source row's id (where nulls[row] is 0). */
  private record Encoded(ConvertOnReadColumn column, Object identity, int size, int[] ids, byte[] nulls,
      int[] sourceRows) {}

  /**
   * Interns rows [0, rows) of the batch by dictionary id into {@code table} (made by {@code newTable} from the
   * first new rows' keys when null) and writes each row's group to {@code groupIds}; returns the table, or null
   * when the batch does not qualify (nothing done).
   */
  GroupTable intern(ColumnarBatch batch, int rows, GroupTable table, Function<List<ValueVector>, GroupTable> newTable, int[] groupIds, BufferAllocator allocator) {
    Encoded[] keys = encoded(batch, keyOrdinals);
    if (keys == null) {
      return null;
    }
    long combinations = 1;
    for (Encoded e : keys) {
      combinations *= e.size() + 1L; // one more id: the null
      if (combinations > MAX_COMBINATIONS) {
        return null;
      }
    }
    if (!sameDictionaries(keys)) {
      identities = new Object[keys.length];
      strides = new int[keys.length];
      int stride = 1;
      for (int k = keys.length - 1; k >= 0; k--) {
        identities[k] = keys[k].identity();
        strides[k] = stride;
        stride *= keys[k].size() + 1;
      }
      if (groupOf.length < combinations) {
        groupOf = new int[(int) combinations];
      }
      Arrays.fill(groupOf, 0, (int) combinations, -1);
    }
    if (combos.length < rows) {
      combos = new int[rows];
    }
    Arrays.fill(combos, 0, rows, 0);
    for (int k = 0; k < keys.length; k++) {
      addIds(keys[k], strides[k], rows, combos);
    }
    // The first row of each combination the table has not seen, in row order; marked -2 meanwhile.
    int fresh = 0;
    for (int i = 0; i < rows; i++) {
      int c = combos[i];
      if (groupOf[c] == -1) {
        groupOf[c] = -2;
        if (firstRows.length == fresh) {
          int n = Math.max(16, fresh * 2);
          firstRows = Arrays.copyOf(firstRows, n);
        }
        firstRows[fresh++] = i;
      }
    }
    if (fresh > 0) {
      table = internFirstRows(keys, fresh, table, newTable, allocator);
    }
    for (int i = 0; i < rows; i++) {
      groupIds[i] = groupOf[combos[i]];
    }
    ROWS.addAndGet(rows);
    return table;
  }

  private boolean sameDictionaries(Encoded[] keys) {
    if (identities == null) {
      return false;
    }
    for (int k = 0; k < keys.length; k++) {
      if (!keys[k].identity().equals(identities[k])) {
        return false;
      }
    }
    return true;
  }

  /** combos[i] += stride x (row i's id in this column, or size for a null). */
  private static void addIds(Encoded e, int stride, int rows, int[] combos) {
    int[] ids = e.ids();
    byte[] nulls = e.nulls();
    int[] at = e.sourceRows();
    int nullId = e.size();
    for (int i = 0; i < rows; i++) {
      int r = at == null ? i : at[i];
      int id = nulls != null && nulls[r] != 0 ? nullId : ids[r];
      if (id < 0 || id > nullId) {
        throw new IllegalStateException("dictionary id " + id + " of row " + i + " is outside the dictionary of "
            + nullId + " entries of column '" + e.column().field().getName() + "'");
      }
      combos[i] += stride * id;
    }
  }

  /** Interns the first rows of the new combinations (their real keys) and records each combination's group. */
  private GroupTable internFirstRows(Encoded[] keys, int fresh, GroupTable table,
      Function<List<ValueVector>, GroupTable> newTable, BufferAllocator allocator) {
    List<ValueVector> vectors = new ArrayList<>(keys.length);
    try {
      for (Encoded e : keys) {
        FieldVector v = e.column().gather(firstRows, fresh, e.column().field(), allocator);
        vectors.add(v);
      }
      if (table == null) {
        table = newTable.apply(vectors);
      }
      if (firstGroups.length < fresh) {
        firstGroups = new int[firstRows.length];
        firstNew = new int[firstRows.length];
      }
      table.intern(vectors, fresh, firstGroups, firstNew);
    } catch (RuntimeException | Error e) {
      identities = null; // the -2 marks stay behind: never answer from them
      throw e;
    } finally {
      for (ValueVector v : vectors) {
        v.close();
      }
    }
    for (int j = 0; j < fresh; j++) {
      groupOf[combos[firstRows[j]]] = firstGroups[j];
    }
    return table;
  }
}
