package io.rowmatch.spark.aggregate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.core.table.GroupTable;
import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.DeferredGatherVector;
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
  /** Per key column, whether it is counted in the combinations through an earlier one (impliedColumns). */
  private boolean[] implied;
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
   * The key columns of this batch as ids into a source of distinct-enough values, or null when one is not (then the
   * batch takes the general path): a scan's dictionary-encoded column (ids into its Parquet dictionary), or a
   * broadcast join's build column passed on deferred (ids are build rows: one build row, one value).
   */
  private static Encoded[] encoded(ColumnarBatch batch, int[] keyOrdinals) {
    Encoded[] out = new Encoded[keyOrdinals.length];
    for (int k = 0; k < out.length; k++) {
      ColumnVector column = batch.column(keyOrdinals[k]);
      if (column instanceof DeferredGatherVector d) {
        out[k] = new Encoded(new BuildSide(d.source()), d.source().getValueCount(), d.rows(), null, null, true,
            d.field(), (at, n, a) -> {
              FieldVector v = d.field().createVector(a);
              try {
                ArrowCopy.gather(d.source(), d.compose(at, n), n, v, new ArrowCopy.Scratch());
              } catch (RuntimeException | Error e) {
                v.close();
                throw e;
              }
              return v;
            });
        continue;
      }
      SparkColumnMemory.DictionaryIds e = column instanceof ConvertOnReadColumn c
          ? SparkColumnMemory.dictionaryIds(c.source()) : null;
      if (e == null) {
        return null;
      }
      ConvertOnReadColumn c = (ConvertOnReadColumn) column;
      out[k] = new Encoded(e.identity(), e.size(), e.ids(), e.nulls(), c.sourceRowsOrNull(), false, c.field(),
          (at, n, a) -> c.gather(at, n, c.field(), a));
    }
    return out;
  }

  /** A build side's column as the identity of its rows' values: the same vector object, not an equal one. */
  private record BuildSide(ValueVector column) {
    @Override
    public boolean equals(Object o) {
      return o instanceof BuildSide b && b.column == column;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(column);
    }
  }

  /** Rows {@code at[0..n)} of a key column as a new vector the caller owns. */
  private interface Gather {
    FieldVector rows(int[] at, int n, BufferAllocator allocator);
  }

  /**
   * One key column: what identifies its values ({@code identity}, {@code size} ids), each source row's id (where
   * {@code nulls[row]} is 0 or nulls is null; with {@code negativeIsNull}, a negative id is a null row), the
   * source row of each of the column's rows (null: the same), and how to read some rows' values.
   */
  private record Encoded(Object identity, int size, int[] ids, byte[] nulls, int[] sourceRows,
      boolean negativeIsNull, Field field, Gather values) {}

  /**
   * Interns rows [0, rows) of the batch by dictionary id into {@code table} (made by {@code newTable} from the
   * first new rows' keys when null) and writes each row's group to {@code groupIds}; returns the table, or null
   * when the batch does not qualify (nothing done).
   */
  GroupTable intern(ColumnarBatch batch, int rows, GroupTable table, Function<List<ValueVector>, GroupTable> newTable,
      int[] groupIds, BufferAllocator allocator) {
    Encoded[] keys = encoded(batch, keyOrdinals);
    if (keys == null) {
      return null;
    }
    boolean[] implied = impliedColumns(keys, rows);
    long combinations = 1;
    for (int k = 0; k < keys.length; k++) {
      if (!implied[k]) {
        combinations *= keys[k].size() + 1L; // one more id: the null
        if (combinations > MAX_COMBINATIONS) {
          return null;
        }
      }
    }
    if (!sameDictionaries(keys) || !Arrays.equals(implied, this.implied)) {
      identities = new Object[keys.length];
      strides = new int[keys.length];
      this.implied = implied;
      int stride = 1;
      for (int k = keys.length - 1; k >= 0; k--) {
        identities[k] = keys[k].identity();
        strides[k] = implied[k] ? 0 : stride;
        stride *= implied[k] ? 1 : keys[k].size() + 1;
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
      if (!implied[k]) {
        addIds(keys[k], strides[k], rows, combos);
      }
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

  /**
   * Per key column, whether an earlier build column's ids already decide it: both read their build sides at the
   * same build row numbers in this batch (two columns of one dimension), so a row's build row gives both values.
   * Counting it once keeps a dimension's several key columns to one factor of the combinations.
   */
  private static boolean[] impliedColumns(Encoded[] keys, int rows) {
    boolean[] implied = new boolean[keys.length];
    for (int k = 1; k < keys.length; k++) {
      for (int j = 0; j < k && !implied[k]; j++) {
        implied[k] = !implied[j] && keys[k].negativeIsNull() && keys[j].negativeIsNull()
            && (keys[k].ids() == keys[j].ids() || Arrays.equals(keys[k].ids(), 0, rows, keys[j].ids(), 0, rows));
      }
    }
    return implied;
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
    boolean negativeIsNull = e.negativeIsNull();
    for (int i = 0; i < rows; i++) {
      int r = at == null ? i : at[i];
      int id = nulls != null && nulls[r] != 0 ? nullId : ids[r];
      if (id < 0 && negativeIsNull) {
        id = nullId;
      }
      if (id < 0 || id > nullId) {
        throw new IllegalStateException("id " + id + " of row " + i + " is outside the " + nullId
            + " values of key column '" + e.field().getName() + "'");
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
        vectors.add(e.values().rows(firstRows, fresh, allocator));
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
