package io.rowmatch.core.table;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.core.compare.ColumnKind;

/**
 * A table's own copy of key rows: one Arrow vector per key column, created from the key schema in the
 * table's allocator, appended to batch by batch. Also checks incoming batches against the schema.
 */
final class KeyColumns implements AutoCloseable {
  private final List<Field> fields;
  private final List<FieldVector> vectors;
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();
  private final List<FieldVector> readOnly;
  /** Per column, one null row of the column's type: the source row when a batch column is a NullVector. */
  private final FieldVector[] nullRows;
  private int rowCount;

  KeyColumns(BufferAllocator allocator, List<Field> keyFields) {
    if (keyFields == null) {
      throw new IllegalArgumentException("keyFields must not be null");
    }
    this.fields = List.copyOf(keyFields);
    this.vectors = new ArrayList<>(fields.size());
    this.nullRows = new FieldVector[fields.size()];
    try {
      for (int c = 0; c < fields.size(); c++) {
        Field f = fields.get(c);
        FieldVector probe = f.createVector(allocator);
        vectors.add(probe);
        // Rejects unsupported types now rather than at the first batch.
        ColumnKind.of(probe, "key column " + c);
        probe.allocateNew();
        FieldVector nullRow = f.createVector(allocator);
        nullRows[c] = nullRow;
        nullRow.allocateNew();
        nullRow.setValueCount(1);
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    this.readOnly = Collections.unmodifiableList(vectors);
  }

  int columnCount() {
    return fields.size();
  }

  int rowCount() {
    return rowCount;
  }

  List<FieldVector> vectors() {
    return readOnly;
  }

  /**
   * Throws an {@link IllegalArgumentException} naming the column unless {@code keys} has one column per key
   * field, each of the key field's type (names ignored) or a NullVector, with the same row count, at least {@code rowCount}.
   */
  void check(List<? extends ValueVector> keys, int rowCount, String table) {
    if (keys == null) {
      throw new IllegalArgumentException(table + ": keys must not be null");
    }
    if (keys.size() != fields.size()) {
      throw new IllegalArgumentException(table + ": expected " + fields.size() + " key columns, got " + keys.size());
    }
    if (rowCount < 0) {
      throw new IllegalArgumentException(table + ": negative rowCount " + rowCount);
    }
    for (int c = 0; c < fields.size(); c++) {
      ValueVector v = keys.get(c);
      if (v == null) {
        throw new IllegalArgumentException(table + ": key column " + c + " is null");
      }
      Field got = v.getField();
      boolean ok = got.getType() instanceof ArrowType.Null || ColumnKind.sameType(fields.get(c), got, false);
      if (!ok) {
        throw new IllegalArgumentException(table + ": key column " + c + " ('" + got.getName() + "') has type "
            + ColumnKind.describe(got) + " but the key schema says " + ColumnKind.describe(fields.get(c)));
      }
      if (v.getValueCount() < rowCount) {
        throw new IllegalArgumentException(table + ": key column " + c + " holds " + v.getValueCount()
            + " rows, fewer than rowCount " + rowCount);
      }
      if (c > 0 && v.getValueCount() != keys.get(0).getValueCount()) {
        throw new IllegalArgumentException(table + ": key column " + c + " holds " + v.getValueCount()
            + " rows but key column 0 holds " + keys.get(0).getValueCount() + "; the columns of a batch must agree");
      }
    }
  }

  /** Appends {@code rows[0..count)} of {@code keys} (already {@link #check checked}) after the stored rows. */
  void append(List<? extends ValueVector> keys, int[] rows, int count) {
    if (count == 0) {
      return;
    }
    int base = rowCount;
    for (int c = 0; c < vectors.size(); c++) {
      FieldVector dst = vectors.get(c);
      ValueVector src = keys.get(c);
      if (dst instanceof NullVector) {
        // Nothing to copy: a NullVector only counts rows.
      } else if (src instanceof NullVector) {
        for (int k = 0; k < count; k++) {
          dst.copyFromSafe(0, base + k, nullRows[c]);
        }
      } else {
        ArrowCopy.append(src, rows, count, dst, base, scratch);
      }
    }
    // Count only after every column holds the rows, so a failure leaves the count at the last whole state.
    for (FieldVector v : vectors) {
      v.setValueCount(base + count);
    }
    rowCount = base + count;
  }

  @Override
  public void close() {
    for (FieldVector v : vectors) {
      v.close();
    }
    for (FieldVector v : nullRows) {
      if (v != null) {
        v.close();
      }
    }
  }
}
