package io.rowmatch.spark.join;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

import io.rowmatch.core.table.JoinProbe;
import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.DeferredGatherVector;
import io.rowmatch.spark.arrow.SparkColumnMemory;
import io.rowmatch.spark.expression.DictionaryEntries;
import io.rowmatch.spark.expression.EntriesOutnumbered;

/**
 * A join's one probe key looked up by id instead of by value, where its rows are ids into a smaller set of values:
 * a column a vectorized Parquet scan hands over dictionary-encoded (ids into the column chunk's dictionary), or an
 * earlier broadcast join's build column passed on deferred (ids are its build rows: one build row, one value). The
 * values (and a null) are looked up once, and every row takes its id's build group. A fact table's foreign key
 * (TPC-H's {@code l_suppkey}, TPC-DS's {@code ss_item_sk}) holds thousands of values over millions of rows, and a
 * chain of joins (lineitem, supplier, nation) reaches the next dimension through the last one's column: each row
 * was copied into Arrow and looked up in the build table; here it is an id load and a table load, and the key
 * column is not copied at all unless the join outputs it (then only its output rows, as any column the join does
 * not read).
 *
 * <p>Looking the values up pays once the rows seen under them outnumber them: until then (a large dictionary, small
 * row groups) batches take the general path, as do batches whose pages are not dictionary-encoded (Spark's reader
 * decodes those). A null row's group is the one the table gives a null key (none, or a null-safe join's).
 */
public final class DictionaryProbe {
  /** Most values looked up whole (a Parquet dictionary page of 1 MB holds at most 256K ints). */
  static final int MAX_VALUES = 1 << 20;
  /** Probe rows looked up by id in this JVM (tests check that a dictionary-encoded or deferred key takes this path). */
  private static final AtomicLong ROWS = new AtomicLong();

  private final DataType type;
  private final String timeZone;
  /** The dictionary or build column groupOfId answers for (null: none yet). */
  private Object identity;
  /** Per id (the null row's last): its build group, or -1. */
  private int[] groupOfId = new int[0];
  private int[] rowIds = new int[0];
  /** Values not looked up yet wait until the rows seen under them outnumber them. */
  private final EntriesOutnumbered entriesOutnumbered = new EntriesOutnumbered();

  DictionaryProbe(DataType type, String timeZone) {
    this.type = type;
    this.timeZone = timeZone;
  }

  /** Whether keys of this type can be looked up by id. */
  static boolean supports(DataType type) {
    return DictionaryEntries.supports(type);
  }

  /** Probe rows looked up by id so far in this JVM. */
  public static long rowsProbed() {
    return ROWS.get();
  }

  /**
   * Looks up rows [0, rows) of the probe batch whose key is {@code key} through its ids into {@code probe} (as
   * {@link JoinProbe#lookup} would), or returns false, having done nothing, when the key is neither a scan's
   * dictionary-encoded column nor an earlier join's build column passed on deferred, or its values are not looked
   * up yet.
   */
  boolean lookup(ColumnVector key, int rows, JoinProbe probe, BufferAllocator allocator) {
    if (key instanceof ConvertOnReadColumn c) {
      SparkColumnMemory.DictionaryIds d = SparkColumnMemory.dictionaryIds(c.source());
      if (d == null || !ready(d.identity(), d.size(), rows)) {
        return false;
      }
      if (!d.identity().equals(identity)) {
        try (FieldVector entries = DictionaryEntries.arrow(d, type, c.field().getName(), timeZone, allocator)) {
          findValues(d.identity(), entries, d.size(), probe);
        }
      }
      readIds(d, c.sourceRowsOrNull(), rows, c.field().getName());
    } else if (key instanceof DeferredGatherVector g) {
      // An earlier join's build column: its build rows are the ids (one build row, one value).
      ValueVector source = g.source();
      int size = source.getValueCount();
      if (!ready(source, size, rows)) {
        return false;
      }
      if (source != identity) {
        int[] nullGroup = new int[1];
        try (FieldVector none = g.field().createVector(allocator)) {
          none.setValueCount(1); // one null row: the id of an outer join's missing build rows
          probe.find(List.of(none), 1, nullGroup);
        }
        findValues(source, source, size, probe);
        groupOfId[size] = nullGroup[0];
      }
      readBuildRows(g.rows(), size, rows, g.field().getName());
    } else {
      return false;
    }
    probe.lookupGroups(groupOfId, rowIds, rows);
    ROWS.addAndGet(rows);
    return true;
  }

  /**
   * Whether the values under {@code id} are looked up, or may be now: once the rows seen under them outnumber them
   * (looking up more values than rows would cost more than it saves).
   */
  private boolean ready(Object id, int size, int rows) {
    if (size >= MAX_VALUES) {
      return false;
    }
    if (rowIds.length < rows) {
      rowIds = new int[rows];
    }
    if (id.equals(identity)) {
      return true;
    }
    return entriesOutnumbered.count(id, rows, size);
  }

  /**
   * Looks up values [0, size) of {@code values} (and, when it has one more row, that row: a null) and records
   * each one's group under {@code id}.
   */
  private void findValues(Object id, ValueVector values, int size, JoinProbe probe) {
    identity = null;
    int n = Math.min(values.getValueCount(), size + 1);
    if (groupOfId.length < size + 1) {
      groupOfId = new int[size + 1];
    }
    probe.find(List.of(values), n, groupOfId);
    identity = id;
  }

  /** rowIds[i] = row i's build row, or size (the null's id) for a negative one. */
  private void readBuildRows(int[] buildRows, int size, int rows, String column) {
    int[] out = rowIds;
    int bad = 0;
    for (int i = 0; i < rows; i++) {
      int r = buildRows[i];
      out[i] = r < 0 ? size : r;
      bad |= (size - 1 - r) & ~(r >> 31); // negative when r >= size
    }
    if (bad < 0) {
      for (int i = 0; i < rows; i++) {
        if (buildRows[i] >= size) {
          throw new IllegalStateException("build row " + buildRows[i] + " of row " + i + " is outside the " + size
              + " rows of join key column '" + column + "'");
        }
      }
    }
  }

  /** rowIds[i] = row i's dictionary id, or the null row's id; branch-free loops the JIT vectorizes. */
  private void readIds(SparkColumnMemory.DictionaryIds d, int[] sourceRows, int rows, String column) {
    int[] ids = d.ids();
    byte[] nulls = d.nulls();
    int nullId = d.size();
    int[] out = rowIds;
    if (sourceRows == null) {
      System.arraycopy(ids, 0, out, 0, rows);
    } else {
      for (int i = 0; i < rows; i++) {
        out[i] = ids[sourceRows[i]];
      }
    }
    int bad = 0;
    if (nulls == null) {
      for (int i = 0; i < rows; i++) {
        bad |= out[i] | (nullId - out[i]);
      }
    } else {
      // A null row's id is whatever the reader left there; mask: -1 where the null byte is set, else 0.
      for (int i = 0; i < rows; i++) {
        int b = nulls[sourceRows == null ? i : sourceRows[i]];
        int mask = (b | -b) >> 31;
        int id = (out[i] & ~mask) | (nullId & mask);
        out[i] = id;
        bad |= id | (nullId - id);
      }
    }
    if (bad < 0) {
      for (int i = 0; i < rows; i++) {
        if (out[i] < 0 || out[i] > nullId) {
          throw new IllegalStateException("dictionary id " + out[i] + " of row " + i + " is outside the " + nullId
              + " entries of join key column '" + column + "'");
        }
      }
    }
  }
}
