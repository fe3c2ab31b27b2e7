package io.rowmatch.spark.arrow;

import java.util.Iterator;
import java.util.NoSuchElementException;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * Rows to Arrow batches of at most batchSize rows through {@link ArrowRowWriter}. One set of vectors is
 * reused for every batch: a batch is valid until the next call to next(), the usual columnar contract
 * (consumers copy what they keep). The vectors are released by close().
 */
public final class RowsToArrowBatches implements Iterator<ColumnarBatch>, AutoCloseable {
  private final Iterator<InternalRow> rows;
  private final int batchSize;
  private final long memoryLimit;
  private final VectorSchemaRoot root;
  private final ArrowRowWriter writer;
  private final ColumnarBatch batch;
  private boolean closed;

  public RowsToArrowBatches(Iterator<InternalRow> rows, StructType schema, String timeZone, int batchSize,
      BufferAllocator allocator, long memoryLimit) {
    this.rows = rows;
    this.batchSize = batchSize;
    this.memoryLimit = memoryLimit;
    this.root = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema, timeZone), allocator);
    ArrowRowWriter created;
    try {
      created = new ArrowRowWriter(root, batchSize);
    } catch (OutOfMemoryException e) {
      root.close();
      throw TaskArrowMemory.outOfMemory("RowmatchToArrow", memoryLimit, e);
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
    this.writer = created;
    this.batch = ArrowSchemas.sparkBatch(root.getFieldVectors());
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    if (rows.hasNext()) {
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
    try {
      writer.startBatch();
      while (writer.count() < batchSize && rows.hasNext()) {
        writer.write(rows.next());
      }
      writer.finishBatch();
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory("RowmatchToArrow", memoryLimit, e);
    }
    batch.setNumRows(writer.count());
    return batch;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      root.close();
    }
  }
}
