package io.rowmatch.spark.expression;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;

import io.rowmatch.spark.arrow.ConvertOnReadColumn;

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
  final DataType[] types;
  final int rows;
  /** Per column, the Arrow row of each of the root's rows (null: the identity, or every column's). */
  private final int[][] rowsOf;
  /** The batch this one selects from (itself for a root). */
  private final EvalBatch root;
  /** The root's row of each row (null for a root). */
  private final int[] rootRows;
  private final Vec[] read;
  /** A Spark batch's own (non-Arrow) columns, read by {@link #readers}; null for Arrow columns. */
  private final org.apache.spark.sql.vectorized.ColumnVector[] spark;
  private final SparkVecs[] readers;

  /** A Spark batch's columns (a vectorized scan's), read straight into Vecs by the per-column readers. */
  EvalBatch(org.apache.spark.sql.vectorized.ColumnVector[] spark, SparkVecs[] readers, DataType[] types, int rows) {
    this.unread = null;
    this.columns = null;
    this.types = types;
    this.rows = rows;
    this.rowsOf = null;
    this.root = this;
    this.rootRows = null;
    this.read = new Vec[spark.length];
    this.spark = spark;
    this.readers = readers;
  }

  EvalBatch(ValueVector[] columns, DataType[] types, int rows) {
    this(columns, types, null, null, rows);
  }

  /** {@code unread[c]} (when not null): column c, copied into Arrow (columns[c]) when first read. */
  EvalBatch(ValueVector[] columns, DataType[] types, int[][] rowsOf, ConvertOnReadColumn[] unread, int rows) {
    this.unread = unread;
    this.columns = columns;
    this.types = types;
    this.rows = rows;
    this.rowsOf = rowsOf;
    this.root = this;
    this.rootRows = null;
    this.read = new Vec[columns.length];
    this.spark = null;
    this.readers = null;
  }

  private EvalBatch(EvalBatch root, int[] rootRows) {
    this.unread = root.unread;
    this.columns = root.columns;
    this.types = root.types;
    this.rows = rootRows.length;
    this.rowsOf = root.rowsOf;
    this.root = root;
    this.rootRows = rootRows;
    this.read = new Vec[root.read.length];
    this.spark = root.spark;
    this.readers = root.readers;
  }

  /** Column c's Arrow vector (a scan's column is copied into Arrow on its first read). */
  private ValueVector arrow(int c) {
    if (columns[c] == null && unread != null && unread[c] != null) {
      columns[c] = unread[c].getValueVector();
    }
    return columns[c];
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

  Vec column(int ordinal) {
    Vec v = read[ordinal];
    if (v == null) {
      if (rootRows != null && root.read[ordinal] != null) {
        // the root already read the column: pick the rows from it
        v = root.read[ordinal].gather(rootRows, rows);
      } else {
        int[] sel = arrowRows(ordinal);
        v = spark != null ? readers[ordinal].read(spark[ordinal], sel, rows)
            : sel == null ? ArrowVecs.read(arrow(ordinal), types[ordinal], rows)
            : ArrowVecs.readSelected(arrow(ordinal), types[ordinal], sel, rows);
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
    if (spark != null) {
      return readers[ordinal].validity(spark[ordinal], arrowRows(ordinal), rows);
    }
    return ArrowVecs.readValidity(arrow(ordinal), arrowRows(ordinal), rows);
  }

  /** Rows {@code sel[0..n)} of a root's column c, from what a kernel read already or from the source. */
  Vec columnAt(int c, int[] sel, int n) {
    if (read[c] != null) {
      return read[c].gather(sel, n);
    }
    if (spark != null) {
      return readers[c].read(spark[c], sel, n);
    }
    return ArrowVecs.readSelected(arrow(c), types[c], sel, n);
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
