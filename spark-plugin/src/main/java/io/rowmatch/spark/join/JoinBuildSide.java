package io.rowmatch.spark.join;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorAppender;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.core.table.JoinTable;
import io.rowmatch.spark.arrow.ArrowSchemas;
import io.rowmatch.spark.arrow.RowsToArrowBatches;
import io.rowmatch.spark.shuffle.ShuffleBatchDecoder;

/**
 * The build side of a hash join: every build row appended into one set of Arrow columns (so a build row id
 * is a plain index for the output gather) plus the {@link JoinTable} over its keys. Input batches may be
 * reused by their producer after next(), so their columns are copied (bulk, with Arrow's VectorAppender)
 * and their keys interned before the next batch is pulled. Everything comes from the given allocator and
 * is released by {@link #close()}, also when building fails half way.
 */
public final class JoinBuildSide implements AutoCloseable {
  private final List<FieldVector> columns = new ArrayList<>();
  private final JoinTable table;
  private final JoinKeyVectors keyVectors;
  private int rows;
  private boolean nullKey;
  private boolean closed;

  private JoinBuildSide(JoinSpec spec, BufferAllocator allocator) {
    Schema schema = ArrowSchemas.toArrow(spec.buildSchema(), spec.timeZone);
    JoinKeyVectors kv = null;
    JoinTable t = null;
    try {
      for (Field f : schema.getFields()) {
        FieldVector v = f.createVector(allocator);
        columns.add(v);
        v.allocateNew();
      }
      kv = spec.buildKeyVectors(allocator);
      List<Field> keyFields = new ArrayList<>();
      int width = schema.getFields().size();
      for (int i = 0; i < spec.buildKeys.length; i++) {
        int k = spec.buildKeys[i];
        keyFields.add(k < width ? schema.getFields().get(k) : ArrowSchemas.toArrow("_rowmatch_key_" + (k - width),
            spec.buildComputed[k - width].dataType(), spec.buildComputed[k - width].nullable(), spec.timeZone));
      }
      t = new JoinTable(allocator, keyFields, spec.nullsEqual, spec.nansEqual, spec.operatorName + " build side");
    } catch (RuntimeException e) {
      closeColumns();
      if (kv != null) {
        kv.close();
      }
      throw e;
    }
    keyVectors = kv;
    table = t;
  }

  /** Builds from Arrow batches of the build child (columns in the build child's output order). */
  public static JoinBuildSide fromBatches(Iterator<ColumnarBatch> input, JoinSpec spec, BufferAllocator allocator) {
    JoinBuildSide side = new JoinBuildSide(spec, allocator);
    try {
      while (input.hasNext()) {
        side.add(input.next(), spec);
      }
      side.finish();
      return side;
    } catch (RuntimeException | Error e) {
      side.close();
      throw e;
    }
  }

  /**
   * Builds from Arrow batches until {@code stop} says a batch would not fit: then returns the side as built
   * so far, unfinished (only its columns are read, to spill them), and that batch, not added. {@code pending}
   * is null when the whole input was built (the side is finished, as {@link #fromBatches} does).
   */
  public static Partial fromBatchesUntil(Iterator<ColumnarBatch> input, JoinSpec spec, BufferAllocator allocator,
      java.util.function.BiPredicate<JoinBuildSide, ColumnarBatch> stop) {
    JoinBuildSide side = new JoinBuildSide(spec, allocator);
    try {
      while (input.hasNext()) {
        ColumnarBatch b = input.next();
        if (b.numRows() > 0 && stop.test(side, b)) {
          return new Partial(side, b);
        }
        side.add(b, spec);
      }
      side.finish();
      return new Partial(side, null);
    } catch (RuntimeException | Error e) {
      side.close();
      throw e;
    }
  }

  /** What {@link #fromBatchesUntil} built, and the batch it stopped at (null: everything). */
  public record Partial(JoinBuildSide side, ColumnarBatch pending) {
    /** The side built so far, finished to be probed (a chunked join's chunk) instead of spilled. */
    JoinBuildSide finished() {
      if (pending != null) {
        side.finish();
      }
      return side;
    }
  }

  /** Builds from rows (a broadcast relation's rows), converted to Arrow batches first. */
  public static JoinBuildSide fromRows(Iterator<InternalRow> input, JoinSpec spec, BufferAllocator allocator) {
    try (RowsToArrowBatches batches = new RowsToArrowBatches(input, spec.buildSchema(), spec.timeZone,
        spec.batchSize, allocator, spec.memoryLimit)) {
      return fromBatches(batches, spec, allocator);
    }
  }

  /** Builds from Arrow shuffle records (a Rowmatch broadcast's, see {@link ArrowBroadcast}). */
  public static JoinBuildSide fromRecords(Iterator<byte[]> records, JoinSpec spec, BufferAllocator allocator) {
    try (ShuffleBatchDecoder batches = new ShuffleBatchDecoder(records, spec.buildSchema(), spec.timeZone,
        spec.batchSize, allocator, spec.memoryLimit)) {
      return fromBatches(batches, spec, allocator);
    }
  }

  private void add(ColumnarBatch batch, JoinSpec spec) {
    int n = batch.numRows();
    if (n == 0) {
      return;
    }
    if (batch.numCols() != columns.size()) {
      throw new IllegalStateException(spec.operatorName + ": build batch has " + batch.numCols() + " columns, expected "
          + columns.size());
    }
    ValueVector[] in = new ValueVector[columns.size()];
    for (int c = 0; c < in.length; c++) {
      in[c] = arrow(batch.column(c), c, spec.operatorName);
      if (in[c].getValueCount() != n) {
        throw new IllegalStateException(spec.operatorName + ": build column " + c + " holds " + in[c].getValueCount()
            + " values in a batch of " + n + " rows");
      }
    }
    List<ValueVector> keys = keyVectors.of(in, batch);
    if (spec.nullAwareAnti && keys.get(0).getNullCount() > 0) {
      nullKey = true;
    }
    table.addBatch(keys, n);
    for (int c = 0; c < in.length; c++) {
      in[c].accept(new VectorAppender(columns.get(c)), null);
    }
    rows += n;
  }

  private void finish() {
    keyVectors.close(); // computed keys are interned by the table; their vectors are not needed any more
    table.finish();
  }

  /** For a null-aware anti join: some build row has a null key (then no probe row is kept). */
  public boolean hasNullKey() {
    return nullKey;
  }

  /**
   * A fresh read-only Spark view of the build rows, for a join condition. One per user: a ColumnarBatch's
   * row cursor is mutable, and a broadcast build side is read by several tasks at once. Never close it
   * (closing an ArrowColumnVector closes the build column).
   */
  public ColumnarBatch newRowView() {
    ColumnVector[] cv = new ColumnVector[columns.size()];
    for (int c = 0; c < cv.length; c++) {
      cv[c] = new ArrowColumnVector(columns.get(c));
    }
    return new ColumnarBatch(cv, rows);
  }

  public static ValueVector arrow(ColumnVector cv, int column, String operator) {
    if (!(cv instanceof ArrowColumnVector)) {
      throw new IllegalStateException(operator + " expects Arrow batches but column " + column + " is a "
          + cv.getClass().getSimpleName());
    }
    return ((ArrowColumnVector) cv).getValueVector();
  }

  public JoinTable table() {
    return table;
  }

  public List<FieldVector> columns() {
    return columns;
  }

  public int rowCount() {
    return rows;
  }

  public long allocatedBytes() {
    long bytes = table == null ? 0 : table.allocatedBytes();
    for (FieldVector v : columns) {
      bytes += v.getBufferSize();
    }
    return bytes;
  }

  private void closeColumns() {
    for (FieldVector v : columns) {
      v.close();
    }
    columns.clear();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeColumns();
    if (keyVectors != null) {
      keyVectors.close();
    }
    if (table != null) {
      table.close();
    }
  }
}
