package io.rowmatch.spark.arrow;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.expression.SparkColumnGather;
import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * Spark columnar batches to Arrow batches. A batch whose columns are all ArrowColumnVector passes through
 * untouched (zero copy); any other batch (OnHeap/OffHeapColumnVector from the vectorized readers) is
 * copied column by column into one reused set of Arrow vectors, in bulk where the storage allows it
 * ({@link ColumnVectorCopy}). Flat columns are copied when first read ({@link ConvertOnReadColumn}), so a join
 * above copies only the rows it keeps of the columns it does not read; nested ones at once. A converted batch is
 * valid until the next call to next().
 */
public final class ColumnarToArrowBatches implements Iterator<ColumnarBatch>, AutoCloseable {
  private final Iterator<ColumnarBatch> input;
  private final StructType schema;
  private final String timeZone;
  private final BufferAllocator allocator;
  private final long memoryLimit;
  private VectorSchemaRoot root;
  private ColumnVectorCopy[] copies;
  /** Per column: the gather of chosen rows from Spark's column for a column copied on read; null: copied at once. */
  private SparkColumnGather[] gathers;
  private FieldVector[] vectors;
  private ColumnVector[] eager;
  private boolean closed;

  public ColumnarToArrowBatches(Iterator<ColumnarBatch> input, StructType schema, String timeZone,
      BufferAllocator allocator, long memoryLimit) {
    this.input = input;
    this.schema = schema;
    this.timeZone = timeZone;
    this.allocator = allocator;
    this.memoryLimit = memoryLimit;
  }

  public static boolean isArrow(ColumnarBatch batch) {
    for (int i = 0; i < batch.numCols(); i++) {
      if (!(batch.column(i) instanceof ArrowColumnVector)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    if (input.hasNext()) {
      return true;
    }
    close();
    return false;
  }

  @Override
  public ColumnarBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    ColumnarBatch batch = input.next();
    if (isArrow(batch)) {
      return batch;
    }
    if (root == null) {
      root = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema, timeZone), allocator);
      List<FieldVector> all = root.getFieldVectors();
      vectors = all.toArray(new FieldVector[0]);
      copies = new ColumnVectorCopy[vectors.length];
      gathers = new SparkColumnGather[vectors.length];
      eager = new ColumnVector[vectors.length];
      for (int i = 0; i < vectors.length; i++) {
        copies[i] = new ColumnVectorCopy(vectors[i]);
        DataType type = schema.fields()[i].dataType();
        if (SparkColumnGather.gathers(type) && SparkArrowKind.of(vectors[i]) != SparkArrowKind.NESTED) {
          gathers[i] = new SparkColumnGather(type);
        } else {
          eager[i] = new ArrowColumnVector(vectors[i]);
        }
      }
    }
    int n = batch.numRows();
    ColumnVector[] columns = new ColumnVector[vectors.length];
    try {
      for (int c = 0; c < copies.length; c++) {
        if (gathers[c] != null) {
          columns[c] = new ConvertOnReadColumn(batch.column(c), n, vectors[c], copies[c], gathers[c], timeZone,
              allocator);
        } else {
          copies[c].copy(batch.column(c), n);
          columns[c] = eager[c];
        }
      }
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory("RowmatchToArrow", memoryLimit, e);
    }
    return new ColumnarBatch(columns, n);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      if (root != null) {
        root.close();
      }
    }
  }
}
