package io.rowmatch.spark.arrow;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * Spark columnar batches to Arrow batches. A batch whose columns are all ArrowColumnVector passes through
 * untouched (zero copy); any other batch (OnHeap/OffHeapColumnVector from the vectorized readers) is
 * copied column by column into one reused set of Arrow vectors, in bulk where the storage allows it
 * ({@link ColumnVectorCopy}). A converted batch is valid until the next call to next().
 */
public final class ColumnarToArrowBatches implements Iterator<ColumnarBatch>, AutoCloseable {
  private final Iterator<ColumnarBatch> input;
  private final StructType schema;
  private final String timeZone;
  private final BufferAllocator allocator;
  private final long memoryLimit;
  private VectorSchemaRoot root;
  private ColumnVectorCopy[] copies;
  private ColumnarBatch converted;
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
      List<FieldVector> vectors = root.getFieldVectors();
      ColumnVector[] columns = new ColumnVector[vectors.size()];
      copies = new ColumnVectorCopy[vectors.size()];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = new ArrowColumnVector(vectors.get(i));
        copies[i] = new ColumnVectorCopy(vectors.get(i));
      }
      converted = new ColumnarBatch(columns);
    }
    int n = batch.numRows();
    try {
      for (int c = 0; c < copies.length; c++) {
        copies[c].copy(batch.column(c), n);
      }
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory("RowmatchToArrow", memoryLimit, e);
    }
    converted.setNumRows(n);
    return converted;
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
