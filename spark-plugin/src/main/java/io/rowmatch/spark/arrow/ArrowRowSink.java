package io.rowmatch.spark.arrow;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * The end of a Spark code-generated stage that writes its rows straight into Arrow batches (see
 * {@link ArrowSinkExec}): each row the stage makes is written while it is current, so a stage whose join makes
 * several rows per input row does not copy each into Spark's row buffer first (TPC-DS q72: 27% of the query).
 *
 * <p>The generated loop calls {@link #write} per row, and appends {@link #batchRow()} to the stage's buffer when
 * a write fills a batch: the stage then stops at its next stop check and hands the batch to its consumer. A join
 * finishes its current input row's pairs before that check, so rows written while a batch is out are copied
 * aside and start the next batch. At the start of every call of the stage, {@link #resume()} starts that next
 * batch (the consumer is done with the last one: the vectors are reused, the usual columnar contract), and after
 * the stage's input ends {@link #finishInput()} hands out what is left.
 */
public final class ArrowRowSink implements AutoCloseable {
  private static final String OPERATOR = "RowmatchToArrow";
  private static final AtomicLong OPENED = new AtomicLong();

  private final VectorSchemaRoot root;
  private final ArrowRowWriter writer;
  private final ColumnarBatch batch;
  private final BatchRow row;
  private final int capacity;
  private final long memoryLimit;
  /** Rows made while the batch was out: the rest of one input row's pairs. */
  private final ArrayDeque<InternalRow> overflow = new ArrayDeque<>();
  /** The batch was appended to the stage's buffer; the consumer has it until the stage is called again. */
  private boolean out;
  private boolean inputDone;
  private boolean closed;

  private ArrowRowSink(StructType schema, ArrowSettings settings, BufferAllocator allocator) {
    this.capacity = settings.batchSize;
    this.memoryLimit = settings.memoryLimit;
    this.root = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema, settings.timeZone), allocator);
    try {
      this.writer = new ArrowRowWriter(root, capacity);
      writer.startBatch();
    } catch (OutOfMemoryException e) {
      root.close();
      throw TaskArrowMemory.outOfMemory(OPERATOR, memoryLimit, e);
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
    List<FieldVector> vectors = root.getFieldVectors();
    ColumnVector[] columns = new ColumnVector[vectors.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new ArrowColumnVector(vectors.get(i));
    }
    this.batch = new ColumnarBatch(columns);
    this.row = BatchRow.of(batch);
    OPENED.incrementAndGet();
  }

  /** How many sinks this JVM opened (one per task of a stage that wrote into Arrow): tests assert they ran. */
  public static long opened() {
    return OPENED.get();
  }

  /** Serializable part of the generated stage's references: opens one sink per task, closed with it. */
  public static final class Factory implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StructType schema;
    private final ArrowSettings settings;

    public Factory(StructType schema, ArrowSettings settings) {
      this.schema = schema;
      this.settings = settings;
    }

    public ArrowRowSink open() {
      return TaskArrowMemory.open(TaskContext.get(), settings.memoryLimit,
          allocator -> new ArrowRowSink(schema, settings, allocator));
    }
  }

  /** The stage's output: one "row" per Arrow batch, which RowmatchToArrow unwraps. */
  public static final class BatchRow extends GenericInternalRow {
    private final ColumnarBatch batch;

    private BatchRow(ColumnarBatch batch) {
      super(0);
      this.batch = batch;
    }

    public static BatchRow of(ColumnarBatch batch) {
      return new BatchRow(batch);
    }

    }

  /** Unwraps a row of a sink stage's output. */
  public static ColumnarBatch batchOf(InternalRow row) {
    if (!(row instanceof BatchRow b)) {
      throw new IllegalStateException("an Arrow sink stage produced a " + row.getClass().getName()
          + " instead of an Arrow batch");
    }
    return b.batch;
  }

  /** Writes the stage's current row; true when it filled the batch (the caller then appends {@link #batchRow()}). */
  public boolean write(InternalRow r) {
    if (out) {
      overflow.add(r.copy());
      return false;
    }
    try {
      writer.write(r);
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory(OPERATOR, memoryLimit, e);
    }
    if (writer.count() == capacity) {
      handOut();
      return true;
    }
    return false;
  }

  /**
   * At the start of each call of the stage: the batch handed out before is consumed, so the next one starts
   * with the rows copied aside. True when a batch is ready (full, or the last after the input ended).
   */
  public boolean resume() {
    if (out) {
      out = false;
      try {
        writer.startBatch();
        while (!overflow.isEmpty() && writer.count() < capacity) {
          writer.write(overflow.poll());
        }
      } catch (OutOfMemoryException e) {
        throw TaskArrowMemory.outOfMemory(OPERATOR, memoryLimit, e);
      }
      if (writer.count() == capacity || (inputDone && writer.count() > 0)) {
        handOut();
        return true;
      }
    }
    return false;
  }

  /** Whether the stage's input ended and every row was handed out; the vectors are then released. */
  public boolean done() {
    if (inputDone && !out && writer.count() == 0 && overflow.isEmpty()) {
      close();
      return true;
    }
    return false;
  }

  /** Called once the stage's input ended: true when a last, partial batch is ready. */
  public boolean finishInput() {
    inputDone = true;
    if (!out && writer.count() > 0) {
      handOut();
      return true;
    }
    return false;
  }

  public InternalRow batchRow() {
    return row;
  }

  private void handOut() {
    writer.finishBatch();
    batch.setNumRows(writer.count());
    out = true;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      overflow.clear();
      root.close();
    }
  }
}
