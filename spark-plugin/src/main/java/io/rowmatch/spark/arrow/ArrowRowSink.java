package io.rowmatch.spark.arrow;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * The end of a Spark code-generated stage that writes its rows straight into Arrow batches (see
 * {@link ArrowSinkExec}): each row the stage makes is written while it is current, from the stage's variables
 * ({@link #writer()}, then {@link #endRow()}) or from its row ({@link #write}), so a stage whose join makes several
 * rows per input row does not copy each into Spark's row buffer first (TPC-DS q72: 27% of the query).
 *
 * <p>When a row fills a batch, the generated code appends the batch's {@link BatchRow} to the stage's buffer,
 * and the stage stops at its next stop check. A join finishes its current input row's pairs before that check:
 * those rows go on into the next set of vectors (a batch out is never written again), so one call of the stage
 * may hand out several batches. The consumer has read them all when the stage is called again, and
 * {@link #resume()} then frees their vectors for reuse (the usual columnar contract: a batch is valid until the
 * next one is asked for). After the input ends, {@link #finishInput()} hands out what is left.
 */
public final class ArrowRowSink implements AutoCloseable {
  private static final String OPERATOR = "RowmatchToArrow";
  private static final AtomicLong OPENED = new AtomicLong();

  private final StructType schema;
  private final ArrowSettings settings;
  private final BufferAllocator allocator;
  private final int capacity;
  /** Every set of vectors made; those before {@link #current} were handed out in this call of the stage. */
  private final List<Slot> slots = new ArrayList<>();
  private int current;
  private ArrowRowWriter writer;
  private boolean inputDone;
  /** The last, partial batch was handed out. */
  private boolean lastOut;
  private boolean closed;

  /** One batch's vectors, its writer and the row that carries it out of the stage. */
  private static final class Slot implements AutoCloseable {
    final VectorSchemaRoot root;
    final ArrowRowWriter writer;
    final ColumnarBatch batch;
    final BatchRow row;

    Slot(VectorSchemaRoot root, int capacity) {
      this.root = root;
      this.writer = new ArrowRowWriter(root, capacity);
      this.batch = ArrowSchemas.sparkBatch(root.getFieldVectors());
      this.row = new BatchRow(batch);
    }

    InternalRow handOut() {
      writer.finishBatch();
      batch.setNumRows(writer.count());
      return row;
    }

    @Override
    public void close() {
      root.close();
    }
  }

  private ArrowRowSink(StructType schema, ArrowSettings settings, BufferAllocator allocator) {
    this.schema = schema;
    this.settings = settings;
    this.allocator = allocator;
    this.capacity = settings.batchSize;
    this.writer = slot(0).writer;
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

  /** The writer of the current row: puts, then {@link #endRow()}. Valid until endRow. */
  public ArrowRowWriter writer() {
    return writer;
  }

  /** Ends the row put into {@link #writer()}: the batch it filled (to append to the stage's buffer), or null. */
  public InternalRow endRow() {
    writer.endRow();
    return writer.count() == capacity ? next() : null;
  }

  /** Writes the stage's current row whole (a schema with nested columns); as {@link #endRow()}. */
  public InternalRow write(InternalRow r) {
    try {
      writer.write(r);
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory(OPERATOR, settings.memoryLimit, e);
    }
    return writer.count() == capacity ? next() : null;
  }

  /** Hands out the full current batch and goes on in the next set of vectors. */
  private InternalRow next() {
    InternalRow out = slots.get(current).handOut();
    current++;
    writer = current < slots.size() ? slots.get(current).writer : slot(current).writer;
    try {
      writer.startBatch();
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory(OPERATOR, settings.memoryLimit, e);
    }
    return out;
  }

  private Slot slot(int index) {
    VectorSchemaRoot root = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema, settings.timeZone), allocator);
    Slot made;
    try {
      made = new Slot(root, capacity);
      made.writer.startBatch();
    } catch (OutOfMemoryException e) {
      root.close();
      throw TaskArrowMemory.outOfMemory(OPERATOR, settings.memoryLimit, e);
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
    slots.add(index, made);
    return made;
  }

  /**
   * At the start of each call of the stage: the batches handed out in the last call were consumed, and the
   * vectors being written move to the front. False once every row was handed out (the vectors are then
   * released and the stage makes no more rows).
   */
  public boolean resume() {
    if (current > 0) {
      Collections.swap(slots, 0, current);
      current = 0;
    }
    if (inputDone && (lastOut || writer.count() == 0)) {
      close();
      return false;
    }
    return true;
  }

  /** Called once the stage's input ended: the last, partial batch to append, or null. */
  public InternalRow finishInput() {
    inputDone = true;
    if (writer.count() == 0) {
      return null;
    }
    lastOut = true;
    return slots.get(current).handOut();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      for (Slot s : slots) {
        s.close();
      }
    }
  }
}
