package io.rowmatch.spark.join;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.DataType;

import io.rowmatch.core.table.JoinProbe;
import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.SparkColumnMemory;
import io.rowmatch.spark.expression.DictionaryEntries;

/**
 * A join's one probe key that a vectorized Parquet scan hands over dictionary-encoded, looked up by dictionary id:
 * the dictionary's entries (and a null) are looked up once per column chunk, and every row takes its id's build
 * group. A fact table's foreign key (TPC-H's {@code l_partkey}, TPC-DS's {@code ss_item_sk}) holds thousands of
 * values over millions of rows: each row was copied into Arrow and looked up in the build table; here it is an id
 * load and a table load, and the key column is not copied at all unless the join outputs it (then only its output
 * rows, as for any column the join does not read).
 *
 * <p>Looking the entries up pays once a chunk's rows outnumber its entries: until then (a large dictionary, small
 * row groups) its batches take the general path, as do batches whose pages are not dictionary-encoded (Spark's
 * reader decodes those). A null row's group is the one the table gives a null key (none, or a null-safe join's).
 */
public final class DictionaryProbe {
  /** Largest dictionary looked up whole (a Parquet dictionary page of 1 MB holds at most 256K ints). */
  static final int MAX_ENTRIES = 1 << 20;
  /** Probe rows looked up by dictionary id in this JVM (tests check that a dictionary-encoded key takes this path). */
  private static final AtomicLong ROWS = new AtomicLong();

  private final DataType type;
  private final String timeZone;
  /** The dictionary groupOfId answers for (null: none yet). */
  private Object identity;
  /** Per id (the null row's last): its build group, or -1. */
  private int[] groupOfId = new int[0];
  private int[] rowIds = new int[0];
  /** A dictionary whose entries are not looked up yet, and the rows seen under it so far. */
  private Object waiting;
  private long rowsWaited;

  DictionaryProbe(DataType type, String timeZone) {
    this.type = type;
    this.timeZone = timeZone;
  }

  /** Whether keys of this type can be looked up by dictionary id. */
  static boolean supports(DataType type) {
    return DictionaryEntries.supports(type);
  }

  /** Probe rows looked up by dictionary id so far in this JVM. */
  public static long rowsProbed() {
    return ROWS.get();
  }

  /**
   * Looks up rows [0, rows) of the probe batch whose key is {@code key} through its dictionary ids into
   * {@code probe} (as {@link JoinProbe#lookup} would), or returns false, having done nothing, when the column's
   * batch is not dictionary-encoded or its dictionary not looked up yet.
   */
  boolean lookup(ConvertOnReadColumn key, int rows, JoinProbe probe, BufferAllocator allocator) {
    SparkColumnMemory.DictionaryIds d = SparkColumnMemory.dictionaryIds(key.source());
    if (d == null || d.size() >= MAX_ENTRIES) {
      return false;
    }
    if (!d.identity().equals(identity)) {
      if (!d.identity().equals(waiting)) {
        waiting = d.identity();
        rowsWaited = 0;
      }
      rowsWaited += rows;
      if (rowsWaited < d.size()) {
        return false;
      }
      findEntries(d, key.field().getName(), probe, allocator);
    }
    if (rowIds.length < rows) {
      rowIds = new int[rows];
    }
    readIds(d, key.sourceRowsOrNull(), rows, key.field().getName());
    probe.lookupGroups(groupOfId, rowIds, rows);
    ROWS.addAndGet(rows);
    return true;
  }

  /** Looks up every entry of the dictionary and the null row. */
  private void findEntries(SparkColumnMemory.DictionaryIds d, String column, JoinProbe probe,
      BufferAllocator allocator) {
    identity = null;
    int n = d.size() + 1;
    if (groupOfId.length < n) {
      groupOfId = new int[n];
    }
    try (FieldVector entries = DictionaryEntries.arrow(d, type, column, timeZone, allocator)) {
      probe.find(List.of(entries), n, groupOfId);
    }
    identity = d.identity();
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
