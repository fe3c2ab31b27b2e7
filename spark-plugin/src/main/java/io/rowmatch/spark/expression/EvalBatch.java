package io.rowmatch.spark.expression;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;

/** One input batch being evaluated: its Arrow columns, each read into a {@link Vec} at most once. */
final class EvalBatch {
  final ValueVector[] columns;
  final DataType[] types;
  final int rows;
  private final Vec[] read;

  EvalBatch(ValueVector[] columns, DataType[] types, int rows) {
    this.columns = columns;
    this.types = types;
    this.rows = rows;
    this.read = new Vec[columns.length];
  }

  Vec column(int ordinal) {
    Vec v = read[ordinal];
    if (v == null) {
      v = ArrowVecs.read(columns[ordinal], types[ordinal], rows);
      read[ordinal] = v;
    }
    return v;
  }
}
