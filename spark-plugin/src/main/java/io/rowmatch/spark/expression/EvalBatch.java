package io.rowmatch.spark.expression;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;

import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.SparkColumnMemory;

/**
 * One input batch being evaluated: its Arrow columns, each read into a {@link Vec} at most once. Row i of column c
 * is Arrow row {@code rowsOf[c][i]} (a join's matched pairs: probe columns at the pairs' probe rows, build columns
 * at their build rows), or Arrow row i when {@code rowsOf[c]} is null. A batch may also be a selection of another's
 * rows ({@link #select}), so a conjunct that only a few rows still need reads and computes only those.
 */
final class EvalBatch {
  /** Arrow columns by ordinal; shared with the selections of this batch, so a column read late is read once. */
  private final ValueVector[] columns;
  private final ConvertOnReadColumn[] unread;
  private final SparkVecs[] unreadReaders;
  final DataType[] types;
  final int rows;
  /** Per column, the Arrow row of each of the root's rows (null: the identity, or every column's). */
  private final int[][] rowsOf;
  /**
   * Per column, true when columns[c] is a deferred column's source (a broadcast build column: the same vector, never
   * refilled, for the whole task) read at rowsOf[c]; null: none is.
   */
  private final boolean[] deferred;
  /** The batch this one selects from (itself for a root). */
  private final EvalBatch root;
  /** The root's row of each row (null for a root). */
  private final int[] rootRows;
  private final Vec[] read;
  /** A Spark batch's own (non-Arrow) columns, read by {@link #readers}; null for Arrow columns. */
  private final org.apache.spark.sql.vectorized.ColumnVector[] spark;
  private final SparkVecs[] readers;
  /** Where this batch's vectors take their numeric arrays (shared with its selections; null: new arrays). */
  private final VecScratch scratch;

  /** A Spark batch's columns (a vectorized scan's), read straight into Vecs by the per-column readers. */
  EvalBatch(org.apache.spark.sql.vectorized.ColumnVector[] spark, SparkVecs[] readers, DataType[] types, int rows,
      VecScratch scratch) {
    this.unread = null;
    this.unreadReaders = null;
    this.columns = null;
    this.types = types;
    this.rows = rows;
    this.rowsOf = null;
    this.deferred = null;
    this.root = this;
    this.rootRows = null;
    this.read = new Vec[spark.length];
    this.spark = spark;
    this.readers = readers;
    this.scratch = scratch;
  }

  EvalBatch(ValueVector[] columns, DataType[] types, int rows, VecScratch scratch) {
    this(columns, types, null, null, null, null, rows, scratch);
  }

  /**
   * {@code unread[c]} (when not null): column c, read from its scan's vector by {@code unreadReaders[c]} when that
   * is not null, else copied into Arrow (columns[c]) when first read. {@code deferred[c]} (when not null): column c
   * is a deferred column's source, read at {@code rowsOf[c]}.
   */
  EvalBatch(ValueVector[] columns, DataType[] types, int[][] rowsOf, boolean[] deferred, ConvertOnReadColumn[] unread,
      SparkVecs[] unreadReaders, int rows, VecScratch scratch) {
    this.unread = unread;
    this.unreadReaders = unreadReaders;
    this.columns = columns;
    this.types = types;
    this.rows = rows;
    this.rowsOf = rowsOf;
    this.deferred = deferred;
    this.root = this;
    this.rootRows = null;
    this.read = new Vec[columns.length];
    this.spark = null;
    this.readers = null;
    this.scratch = scratch;
  }

  private EvalBatch(EvalBatch root, int[] rootRows) {
    this.unread = root.unread;
    this.unreadReaders = root.unreadReaders;
    this.columns = root.columns;
    this.types = root.types;
    this.rows = rootRows.length;
    this.rowsOf = root.rowsOf;
    this.deferred = root.deferred;
    this.root = root;
    this.rootRows = rootRows;
    this.read = new Vec[root.read.length];
    this.spark = root.spark;
    this.readers = root.readers;
    this.scratch = root.scratch;
  }

  /** A new vector of n rows for a kernel's result over this batch (numeric arrays from the batch's scratch). */
  Vec allocate(DataType type, int n) {
    return Vec.allocate(type, n, scratch);
  }

  /** Column c's Arrow vector (a scan's column is copied into Arrow on its first read). */
  private ValueVector arrow(int c) {
    if (columns[c] == null && unread != null && unread[c] != null) {
      columns[c] = unread[c].getValueVector();
    }
    return columns[c];
  }

  /**
   * Whether column c is a scan's column not yet in Arrow, read straight from Spark's vector instead: an expression's
   * input needs one pass over the rows, where copying the column into Arrow first took two more (the whole batch,
   * then the kept rows). A column some operator has already converted is read from Arrow.
   */
  private boolean readsUnreadFromSpark(int c) {
    return unread != null && unread[c] != null && !unread[c].isConverted() && unreadReaders != null
        && unreadReaders[c] != null && unread[c].source().dataType().sameType(types[c]);
  }

  /** The scan rows of this batch's rows of unread column c, or null when they are the scan batch's, in order. */
  private int[] unreadRows(int c) {
    int[] kept = unread[c].sourceRowsOrNull();
    if (rootRows == null) {
      return kept;
    }
    if (kept == null) {
      return rootRows;
    }
    int[] s = new int[rows];
    for (int i = 0; i < rows; i++) {
      s[i] = kept[rootRows[i]];
    }
    return s;
  }

  /** Column c's Arrow rows for this batch's rows, or null when they are 0..rows. */
  private int[] arrowRows(int c) {
    int[] base = rowsOf == null ? null : rowsOf[c];
    if (rootRows == null) {
      return base;
    }
    if (base == null) {
      return rootRows;
    }
    int[] s = new int[rows];
    for (int i = 0; i < rows; i++) {
      s[i] = base[rootRows[i]];
    }
    return s;
  }

  /**
   * Column c's source when c is a deferred column in this batch (a vector fixed for the task, so what is computed
   * over its rows holds for every later batch), else null; {@link #deferredRows} are this batch's rows of it.
   */
  ValueVector deferredSource(int c) {
    return deferred != null && deferred[c] ? columns[c] : null;
  }

  /** The source rows of this batch's rows of deferred column c (see {@link #deferredSource}). */
  int[] deferredRows(int c) {
    return arrowRows(c);
  }

  /** Rows {@code sel[0..rows)} of {@code v} as a vector of this batch (numeric arrays from its scratch). */
  Vec gather(Vec v, int[] sel) {
    return v.gather(sel, rows, scratch);
  }

  Vec column(int ordinal) {
    Vec v = read[ordinal];
    if (v == null) {
      if (rootRows != null && root.read[ordinal] != null) {
        // the root already read the column: pick the rows from it
        v = root.read[ordinal].gather(rootRows, rows, scratch);
      } else {
        int[] sel = arrowRows(ordinal);
        v = readsUnreadFromSpark(ordinal)
            ? unreadReaders[ordinal].read(unread[ordinal].source(), unreadRows(ordinal), rows, scratch)
            : spark != null ? readers[ordinal].read(spark[ordinal], sel, rows, scratch)
            : sel == null ? ArrowVecs.read(arrow(ordinal), types[ordinal], rows, scratch)
            : ArrowVecs.readSelected(arrow(ordinal), types[ordinal], sel, rows, scratch);
      }
      read[ordinal] = v;
    }
    return v;
  }

  /** A column's validity words (null when every row is valid) without reading its values (IS [NOT] NULL). */
  long[] validity(int ordinal) {
    Vec v = read[ordinal];
    if (v != null) {
      return v.valid;
    }
    if (rootRows != null && root.read[ordinal] != null) {
      long[] all = root.read[ordinal].valid;
      return all == null ? null : Vec.gatherBits(all, rootRows, rows);
    }
    if (readsUnreadFromSpark(ordinal)) {
      return unreadReaders[ordinal].validity(unread[ordinal].source(), unreadRows(ordinal), rows);
    }
    if (spark != null) {
      return readers[ordinal].validity(spark[ordinal], arrowRows(ordinal), rows);
    }
    return ArrowVecs.readValidity(arrow(ordinal), arrowRows(ordinal), rows);
  }

  /**
   * Column c in this batch as its scan's dictionary ids ({@link SparkVecs#encoded}), with the scan rows of this
   * batch's rows ({@code rows}, null: 0..rows), or null when it is not a scan column read that way here.
   */
  EncodedColumn encoded(int c) {
    SparkVecs reader;
    org.apache.spark.sql.vectorized.ColumnVector source;
    int[] sourceRows;
    if (spark != null) {
      reader = readers[c];
      source = spark[c];
      sourceRows = arrowRows(c);
    } else if (readsUnreadFromSpark(c)) {
      reader = unreadReaders[c];
      source = unread[c].source();
      sourceRows = unreadRows(c);
    } else {
      return null;
    }
    SparkColumnMemory.DictionaryIds e = reader.encoded(source);
    return e == null ? null : new EncodedColumn(reader, e, sourceRows);
  }

  record EncodedColumn(SparkVecs reader, SparkColumnMemory.DictionaryIds encoded, int[] rows) {}

  /** A batch of {@code v.rows} rows whose column c is v; a kernel over it may read no other column. */
  static EvalBatch ofColumn(DataType[] types, int c, Vec v) {
    EvalBatch b = new EvalBatch(new ValueVector[types.length], types, v.rows, null);
    b.read[c] = v;
    return b;
  }

  /** Rows {@code sel[0..n)} of a root's column c, from what a kernel read already or from the source. */
  Vec columnAt(int c, int[] sel, int n) {
    if (read[c] != null) {
      return read[c].gather(sel, n, scratch);
    }
    if (spark != null) {
      return readers[c].read(spark[c], sel, n, scratch);
    }
    return ArrowVecs.readSelected(arrow(c), types[c], sel, n, scratch);
  }

  /** The batch of rows {@code rowsOfThis[0..count)} of this one (indices into this batch, ascending). */
  EvalBatch select(int[] rowsOfThis, int count) {
    int[] s = new int[count];
    for (int i = 0; i < count; i++) {
      s[i] = rootRows == null ? rowsOfThis[i] : rootRows[rowsOfThis[i]];
    }
    return new EvalBatch(root, s);
  }
}
