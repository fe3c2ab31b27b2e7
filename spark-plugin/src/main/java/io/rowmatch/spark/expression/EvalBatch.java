package io.rowmatch.spark.expression;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;

/**
 * One input batch being evaluated: its Arrow columns, each read into a {@link Vec} at most once. A batch may be a
 * selection of another's rows ({@link #select}): row i is row {@code sel[i]} of the Arrow columns, so a conjunct
 * that only a few rows still need reads and computes only those.
 */
final class EvalBatch {
  final ValueVector[] columns;
  final DataType[] types;
  final int rows;
  /** The Arrow row of each row (null: row i is Arrow row i). */
  final int[] sel;
  /** The batch over all the Arrow rows this one selects from (itself when sel is null). */
  private final EvalBatch root;
  private final Vec[] read;

  EvalBatch(ValueVector[] columns, DataType[] types, int rows) {
    this(columns, types, rows, null, null);
  }

  private EvalBatch(ValueVector[] columns, DataType[] types, int rows, int[] sel, EvalBatch root) {
    this.columns = columns;
    this.types = types;
    this.rows = rows;
    this.sel = sel;
    this.root = root == null ? this : root;
    this.read = new Vec[columns.length];
  }

  Vec column(int ordinal) {
    Vec v = read[ordinal];
    if (v == null) {
      if (sel == null) {
        v = ArrowVecs.read(columns[ordinal], types[ordinal], rows);
      } else if (root.read[ordinal] != null) {
        // the whole column is already read: pick the rows from it
        v = root.read[ordinal].gather(sel, rows);
      } else {
        v = ArrowVecs.readSelected(columns[ordinal], types[ordinal], sel, rows);
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
    if (sel != null && root.read[ordinal] != null) {
      long[] all = root.read[ordinal].valid;
      return all == null ? null : Vec.gatherBits(all, sel, rows);
    }
    return ArrowVecs.readValidity(columns[ordinal], sel, rows);
  }

  /** The batch of rows {@code rows[0..count)} of this one (indices into this batch, ascending). */
  EvalBatch select(int[] rowsOfThis, int count) {
    int[] s = new int[count];
    for (int i = 0; i < count; i++) {
      s[i] = sel == null ? rowsOfThis[i] : sel[rowsOfThis[i]];
    }
    return new EvalBatch(columns, types, count, s, root);
  }
}
