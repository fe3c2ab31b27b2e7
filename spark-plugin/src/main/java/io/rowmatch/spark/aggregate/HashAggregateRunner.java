package io.rowmatch.spark.aggregate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongConsumer;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection$;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.core.table.GroupTable;
import io.rowmatch.spark.arrow.ArrowSchemas;
import io.rowmatch.spark.arrow.RowReadArrowColumnVector;
import io.rowmatch.spark.expression.ColumnarExpressions;
import io.rowmatch.spark.memory.SpillFile;
import io.rowmatch.spark.memory.SpillMetrics;
import io.rowmatch.spark.memory.SpillPartitions;
import io.rowmatch.spark.memory.TaskArrowMemory;
import io.rowmatch.spark.memory.TaskMemory;
import io.rowmatch.spark.testing.TestFaults;

/**
 * Executes one partition of a RowmatchHashAggregate: interns every batch's keys into a GroupTable (nulls
 * equal, NaNs equal, -0.0 equal 0.0: Spark's grouping after NormalizeNaNAndZero), feeds the group ids to
 * the function kernels, then emits keys and buffers/results in Arrow batches of at most batchSize rows.
 * A global aggregate (no keys) always has exactly one group, even over empty input, as in Spark.
 *
 * <p>A partial aggregate whose latest input rows mostly make new groups (PartialSkipProbe) stops
 * aggregating: it emits the groups built so far, then passes every remaining input batch through as Spark's
 * partial buffers, one row per input row (PartialPassThrough), keys and shareable columns zero copy. The
 * final stage merges the repeats, so the answer is the same; a table probe and a value copy per row are
 * saved where they would reduce nothing.
 */
public final class HashAggregateRunner implements Iterator<ColumnarBatch>, AutoCloseable {
  /** Where the runner is in its life; it only moves forward, and phase-specific state is kept by phase. */
  private enum Phase {
    /** Reading the input into the table and the kernels (inside {@link #run}). */
    AGGREGATING,
    /** Handing out the groups built, at most batchSize rows a batch. */
    GROUPS,
    /**
     * The state went to disk at least once: each spill partition's groups are merged by a runner of its own
     * (which may spill again, by other hash bits) and handed out, partition by partition.
     */
    PARTITIONS,
    /**
     * A partial aggregate that stopped aggregating, its groups all out (table and kernels released): each
     * remaining input batch passes through as Spark's partial buffers. Its batches share input vectors.
     */
    PASS_THROUGH,
    /** Closed: every buffer released, no more batches. */
    DONE
  }

  private final AggregateSpec spec;
  private final Iterator<ColumnarBatch> input;
  /** Told the number of input rows passed through unaggregated, batch by batch (a SQL metric). */
  private final LongConsumer skippedRows;
  /** The runner's own allocator (a child of the task's), so its state's size is known. */
  private final BufferAllocator allocator;
  /** The task's allocator: spill partitions are read into it. */
  private final BufferAllocator taskAllocator;
  private final TaskContext task;
  /** The task's consumer in Spark's memory manager; null outside a real task (no spilling then). */
  private final TaskMemory memory;
  private final SpillMetrics metrics;
  /** 0 for the plan's aggregate; n for the merge of a partition spilled n levels deep. */
  private final int level;
  private final AggregateKernel[] kernels;
  /** Groups by the dictionary ids of keys a scan hands over encoded (null for a keyless aggregate). */
  private final DictionaryGroups dictionaryGroups;
  /** Per input column: read only as a key, so not copied into Arrow when the keys are grouped by dictionary id. */
  private final boolean[] keyOnly;
  /** The runner's own per-batch arrays, charged to the task's limit like the kernels' state. */
  private final HeapAccount heap;
  private GroupTable table;
  private int groupCount;
  private int[] groupIds = new int[0];
  private int[] newGroupRows = new int[0];

  private final List<FieldVector> intermediate = new ArrayList<>();
  private final List<FieldVector> owned = new ArrayList<>();
  private VectorSchemaRoot projected;
  private FieldVector[] outputSources;
  private int emitted;
  private ColumnarBatch current;

  private Phase phase = Phase.AGGREGATING;
  /** The phase after GROUPS: PASS_THROUGH when the partial aggregation stopped before its input ended. */
  private Phase afterGroups = Phase.DONE;
  private PartialPassThrough passThrough;
  /** In PASS_THROUGH, the columns the batch handed out last owns (the rest are the input's). */
  private final List<FieldVector> currentOwned = new ArrayList<>();
  private ColumnarBatch pending;
  private final List<FieldVector> pendingOwned = new ArrayList<>();

  /** Spill partitions (null until the first spill). */
  private SpillPartitions partitions;
  /** Whether the runner is waiting for its input between batches: its state is whole and may be spilled. */
  private boolean betweenBatches;
  /** In PARTITIONS: the partition being merged, its reader and its runner. */
  private int nextPartition;
  private SpillFile.BatchReader partitionReader;
  private HashAggregateRunner partitionRunner;
  private final Spill spill = new Spill();
  /** The highest peak of this runner's and its partition runners' allocators. */
  private long peakBytes;

  private HashAggregateRunner(AggregateSpec spec, Iterator<ColumnarBatch> input, LongConsumer skippedRows,
      TaskContext task, SpillMetrics metrics, int level) {
    this.spec = spec;
    this.input = input;
    this.skippedRows = skippedRows;
    this.task = task;
    this.metrics = metrics;
    this.level = level;
    this.taskAllocator = TaskArrowMemory.forTask(task, spec.memoryLimit);
    this.memory = TaskArrowMemory.memoryOf(task);
    this.allocator = taskAllocator.newChildAllocator(spec.operatorName + (level == 0 ? "" : "-spill-" + level), 0,
        Long.MAX_VALUE);
    this.kernels = new AggregateKernel[spec.functions.size()];
    this.heap = new HeapAccount(allocator, spec.operatorName);
    this.dictionaryGroups = spec.keyless() ? null : new DictionaryGroups(spec.keyOrdinals);
    this.keyOnly = keyOnlyColumns(spec);
  }

  private static boolean[] keyOnlyColumns(AggregateSpec spec) {
    int width = 0;
    for (int k : spec.keyOrdinals) {
      width = Math.max(width, k + 1);
    }
    boolean[] keyOnly = new boolean[width];
    for (int k : spec.keyOrdinals) {
      keyOnly[k] = true;
    }
    for (FunctionSpec f : spec.functions) {
      for (int c : f.inputOrdinals) {
        if (c < width) {
          keyOnly[c] = false;
        }
      }
    }
    return keyOnly;
  }

  public static Iterator<ColumnarBatch> run(AggregateSpec spec, Iterator<ColumnarBatch> batches, TaskContext task) {
    return run(spec, batches, task, n -> { }, SpillMetrics.NONE);
  }

  /**
   * skippedRows: told how many input rows a partial aggregate passed through without aggregating; metrics:
   * told of spills and the peak memory.
   */
  public static Iterator<ColumnarBatch> run(AggregateSpec spec, Iterator<ColumnarBatch> batches, TaskContext task,
      LongConsumer skippedRows, SpillMetrics metrics) {
    Iterator<ColumnarBatch> input = TestFaults.wrap(batches, task, spec.operatorName); // test-only, off by default
    return start(spec, input, task, skippedRows, metrics, 0);
  }

  private static HashAggregateRunner start(AggregateSpec spec, Iterator<ColumnarBatch> input, TaskContext task,
      LongConsumer skippedRows, SpillMetrics metrics, int level) {
    HashAggregateRunner runner = new HashAggregateRunner(spec, input, skippedRows, task, metrics, level);
    TaskArrowMemory.closeWithTask(task, runner);
    try {
      runner.newKernels();
      if (runner.canSpill()) {
        runner.memory.register(runner.spill);
      }
      runner.consume();
      if (runner.partitions != null) {
        runner.spillState(); // the last groups join their partitions, then each partition is merged
        runner.releaseGroups();
        runner.partitions.finish();
        runner.phase = Phase.PARTITIONS;
      } else {
        runner.prepareOutput();
        runner.phase = Phase.GROUPS;
      }
    } catch (OutOfMemoryException e) {
      RuntimeException failure = TaskArrowMemory.outOfMemory(spec.operatorName, spec.memoryLimit, e);
      closeAfter(runner, failure);
      throw failure;
    } catch (RuntimeException | Error e) {
      closeAfter(runner, e);
      throw e;
    }
    return runner;
  }

  /** Releases a failed runner's memory and files now; a failure to do so is added to the first one. */
  private static void closeAfter(HashAggregateRunner runner, Throwable failure) {
    try {
      runner.close();
    } catch (RuntimeException | Error c) {
      failure.addSuppressed(c);
    }
  }

  private void newKernels() {
    for (int i = 0; i < kernels.length; i++) {
      kernels[i] = spec.functions.get(i).newKernel(allocator, spec.timeZone);
    }
  }

  /** Grouped aggregates in a real task spill (a keyless one holds one group), down to the last hash bits. */
  private boolean canSpill() {
    return memory != null && !spec.keyless() && level < SpillPartitions.MAX_LEVELS;
  }

  /** Smaller state is not worth a spill (memory held by other operators of the task keeps the pressure on). */
  static final long MIN_SPILL_BYTES = 256 << 10;

  /** Interns the input until it ends, or until a partial aggregate decides to pass the rest through. */
  private void consume() {
    List<ValueVector> keys = new ArrayList<>(spec.keyOrdinals.length);
    PartialSkipProbe probe = spec.skipPartialMinRows > 0
        ? new PartialSkipProbe(spec.skipPartialMinRows, spec.skipPartialRatio) : null;
    boolean spills = canSpill();
    while (true) {
      ColumnarBatch batch;
      betweenBatches = spills; // another operator's memory request may spill this runner's state meanwhile
      try {
        if (!input.hasNext()) {
          break;
        }
        batch = input.next();
      } finally {
        betweenBatches = false;
      }
      int rows = batch.numRows();
      if (rows == 0) {
        continue;
      }
      ValueVector[] columns = arrowColumns(batch, keyOnly);
      if (spills && allocator.getAllocatedMemory() >= MIN_SPILL_BYTES && mustSpill(columns, rows)) {
        spillState();
        probe = null; // a partial that spilled goes on aggregating
      }
      if (groupIds.length < rows) {
        heap.charge(2L * Integer.BYTES * (rows - groupIds.length)); // groupIds and newGroupRows
        groupIds = new int[rows];
        newGroupRows = new int[rows];
      }
      if (spec.keyless()) {
        Arrays.fill(groupIds, 0, rows, 0);
        groupCount = 1;
      } else {
        GroupTable byIds = dictionaryGroups.intern(batch, rows, table, this::newTable, groupIds, allocator);
        if (byIds != null) {
          table = byIds;
        } else {
          keys.clear();
          for (int k : spec.keyOrdinals) {
            if (columns[k] == null) {
              columns[k] = arrowColumn(batch, k);
            }
            keys.add(columns[k]);
          }
          if (table == null) {
            table = newTable(keys);
          }
          table.intern(keys, rows, groupIds, newGroupRows);
        }
        groupCount = table.groupCount();
      }
      for (AggregateKernel kernel : kernels) {
        kernel.update(columns, rows, groupIds, groupCount);
      }
      if (probe != null && partitions == null && probe.skipAfter(rows, groupCount)) {
        afterGroups = Phase.PASS_THROUGH;
        break;
      }
    }
    if (spec.keyless()) {
      groupCount = 1;
    }
    peakBytes = Math.max(peakBytes, allocator.getPeakMemoryAllocation());
  }

  /** Before a batch: whether the state must go to disk first (see TaskMemory.mustSpill). */
  private boolean mustSpill(ValueVector[] columns, int rows) {
    long batchBytes = 0;
    for (ValueVector v : columns) {
      batchBytes += v == null ? 0 : v.getBufferSize();
    }
    long state = allocator.getAllocatedMemory();
    return memory.mustSpill(taskAllocator, TaskMemory.batchNeed(batchBytes, state, groupCount,
        (long) groupCount + rows), state);
  }

  /**
   * Writes the groups built so far (keys, then each function's buffers) to the spill partitions by their
   * keys' hash, and starts again with an empty table and fresh kernels. Its own allocations (the buffers'
   * columns) are made without asking Spark: they are released right after.
   */
  private long spillState() {
    long before = allocator.getAllocatedMemory();
    if (groupCount == 0 || table == null) {
      return 0;
    }
    memory.whileSpilling(() -> {
      writeState();
      return null;
    });
    for (int i = 0; i < kernels.length; i++) {
      kernels[i].close();
      kernels[i] = null;
    }
    table.close();
    table = null;
    dictionaryGroups.reset();
    groupCount = 0;
    newKernels();
    metrics.spilled(partitions.newBytes());
    memory.spilled();
    return Math.max(0, before - allocator.getAllocatedMemory());
  }

  private void writeState() {
    List<FieldVector> keyColumns = table.keyColumns();
    List<FieldVector> columns = new ArrayList<>(keyColumns);
    List<FieldVector> buffers = new ArrayList<>();
    try {
      for (AggregateKernel kernel : kernels) {
        kernel.buffers(groupCount, buffers);
      }
      columns.addAll(buffers);
      if (partitions == null) {
        boolean[] all = new boolean[keyColumns.size()];
        Arrays.fill(all, true);
        partitions = new SpillPartitions(all, level, spec.batchSize);
      }
      partitions.write(keyColumns, columns, groupCount, allocator);
    } finally {
      for (FieldVector v : buffers) {
        v.close();
      }
    }
  }

  /** The spec that merges a spill partition: keys, then every function's buffers, in the spilled order. */
  private AggregateSpec mergeSpec() {
    int k = spec.keyOrdinals.length;
    int[] keys = new int[k];
    for (int i = 0; i < k; i++) {
      keys[i] = i;
    }
    List<FunctionSpec> functions = new ArrayList<>(spec.functions.size());
    int next = k;
    for (FunctionSpec f : spec.functions) {
      int[] in = new int[f.bufferFields.length];
      for (int i = 0; i < in.length; i++) {
        in[i] = next++;
      }
      functions.add(new FunctionSpec(f.kernel, in, true, f.ansi, f.ignoreNulls, f.bufferFields, f.resultField,
          f.description, f.errorContext));
    }
    return new AggregateSpec(keys, spec.keyNormalize, functions, spec.finalResults, spec.outputPick,
        spec.projection, spec.intermediateAttributes, spec.outputSchema, spec.timeZone, spec.batchSize,
        spec.memoryLimit, spec.operatorName, 0, spec.skipPartialRatio);
  }

  /** Moves to the next non-empty spill partition's merge; false when every partition is out. */
  private boolean nextPartitionRunner() {
    while (true) {
      if (partitionRunner != null) {
        if (partitionRunner.hasNext()) {
          return true;
        }
        peakBytes = Math.max(peakBytes, partitionRunner.peakBytes);
        partitionRunner.close();
        partitionRunner = null;
        partitionReader.close();
        partitionReader = null;
        partitions.file(nextPartition - 1).delete();
      }
      if (nextPartition == SpillPartitions.FANOUT) {
        return false;
      }
      SpillFile f = partitions.file(nextPartition++);
      if (f.rows() == 0) {
        f.delete();
        continue;
      }
      partitionReader = f.read(taskAllocator);
      SpillMetrics nested = new SpillMetrics() {
        @Override
        public void spilled(long bytes) {
          metrics.spilled(bytes);
        }

        @Override
        public void peakMemory(long bytes) {
          peakBytes = Math.max(peakBytes, bytes);
        }
      };
      partitionRunner = start(mergeSpec(), partitionReader, task, n -> { }, nested, level + 1);
    }
  }

  /** Spark (or another Rowmatch operator of the task) needs memory while this runner waits for input. */
  private final class Spill implements TaskMemory.Spillable {
    @Override
    public boolean atSafePoint() {
      return betweenBatches && phase == Phase.AGGREGATING && allocator.getAllocatedMemory() >= MIN_SPILL_BYTES;
    }

    @Override
    public long spillNow() {
      return spillState();
    }
  }

  private ValueVector[] arrowColumns(ColumnarBatch batch) {
    return arrowColumns(batch, new boolean[0]);
  }

  /** The batch's columns as Arrow vectors, but null for those {@code skip} marks (read when needed, if ever). */
  private ValueVector[] arrowColumns(ColumnarBatch batch, boolean[] skip) {
    ValueVector[] columns = new ValueVector[batch.numCols()];
    for (int c = 0; c < columns.length; c++) {
      if (c >= skip.length || !skip[c]) {
        columns[c] = arrowColumn(batch, c);
      }
    }
    return columns;
  }

  private ValueVector arrowColumn(ColumnarBatch batch, int c) {
    ColumnVector cv = batch.column(c);
    if (!(cv instanceof ArrowColumnVector)) {
      throw new IllegalStateException(spec.operatorName + " expects Arrow batches but column " + c + " is a "
          + cv.getClass().getSimpleName());
    }
    return ((ArrowColumnVector) cv).getValueVector();
  }

  /**
   * The next non-empty input batch as Spark's partial buffers of each row (keys, then each function's
   * buffers, picked as the output), or null at the end of the input.
   */
  private ColumnarBatch passThroughBatch() {
    while (input.hasNext()) {
      ColumnarBatch batch = input.next();
      int rows = batch.numRows();
      if (rows == 0) {
        continue;
      }
      ValueVector[] columns = arrowColumns(batch);
      List<FieldVector> columnsOut = new ArrayList<>();
      for (int k = 0; k < spec.keyOrdinals.length; k++) {
        ValueVector key = columns[spec.keyOrdinals[k]];
        if (spec.keyNormalize[k]) {
          FieldVector normalized = normalizedCopy((FieldVector) key, rows);
          pendingOwned.add(normalized);
          columnsOut.add(normalized);
        } else {
          columnsOut.add((FieldVector) key);
        }
      }
      for (FunctionSpec f : spec.functions) {
        passThrough.buffers(f, columns, rows, columnsOut, pendingOwned);
      }
      ColumnVector[] out = new ColumnVector[spec.outputPick.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = new RowReadArrowColumnVector(columnsOut.get(spec.outputPick[i]));
      }
      skippedRows.accept(rows);
      return new ColumnarBatch(out, rows);
    }
    return null;
  }

  private GroupTable newTable(List<ValueVector> keys) {
    List<Field> fields = new ArrayList<>(keys.size());
    for (ValueVector v : keys) {
      fields.add(v.getField());
    }
    boolean[] all = new boolean[keys.size()];
    Arrays.fill(all, true);
    // Interning by value (an array over the keys' range) until this aggregate spills: a spilled partition's keys
    // span the same range in fewer groups, so only the hash index shrinks with them.
    return new GroupTable(allocator, fields, all, all.clone(), spec.operatorName, level == 0 && partitions == null);
  }

  private void prepareOutput() {
    if (table != null) {
      List<FieldVector> keyColumns = table.keyColumns();
      for (int k = 0; k < keyColumns.size(); k++) {
        FieldVector key = keyColumns.get(k);
        if (spec.keyNormalize[k]) {
          FieldVector normalized = normalizedCopy(key, groupCount);
          owned.add(normalized);
          intermediate.add(normalized);
        } else {
          intermediate.add(key);
        }
      }
    } else if (!spec.keyless()) {
      return; // grouped aggregate over no rows: no output
    }
    List<FieldVector> functionColumns = new ArrayList<>();
    try {
      for (AggregateKernel kernel : kernels) {
        if (spec.finalResults) {
          functionColumns.add(kernel.result(groupCount));
        } else {
          kernel.buffers(groupCount, functionColumns);
        }
      }
    } finally {
      owned.addAll(functionColumns); // also when a kernel fails midway: close() releases what was made
    }
    intermediate.addAll(functionColumns);

    if (spec.outputPick != null) {
      outputSources = new FieldVector[spec.outputPick.length];
      for (int i = 0; i < outputSources.length; i++) {
        outputSources[i] = intermediate.get(spec.outputPick[i]);
      }
    } else {
      project();
    }
  }

  /**
   * Output columns computed from the intermediate columns: by the columnar expression kernels when they evaluate
   * every output expression (q17's 0.2 * avg, q1's sums of products), else by Spark's own projection, row by row.
   */
  private void project() {
    scala.collection.immutable.Seq<Expression> exprs = spec.projectionSeq();
    scala.collection.immutable.Seq<Attribute> attrs = spec.intermediateSeq();
    if (spec.projectionRowReason() == null) {
      projectColumnar(ColumnarExpressions.compile(exprs, attrs));
    } else {
      projectRows(exprs, attrs);
    }
  }

  private void projectColumnar(ColumnarExpressions expressions) {
    Object batch = expressions.open(intermediate.toArray(new ValueVector[0]), groupCount);
    org.apache.spark.sql.types.StructField[] fields = spec.outputSchema.fields();
    FieldVector[] out = new FieldVector[expressions.size()];
    for (int i = 0; i < out.length; i++) {
      int pass = expressions.passThrough(i);
      if (pass >= 0) {
        out[i] = intermediate.get(pass);
      } else {
        out[i] = expressions.evaluate(batch, i, fields[i].name(), fields[i].nullable(), spec.timeZone, allocator);
        owned.add(out[i]); // released by close() with the other state
      }
    }
    outputSources = out;
  }

  private void projectRows(scala.collection.immutable.Seq<Expression> exprs,
      scala.collection.immutable.Seq<Attribute> attrs) {
    ColumnVector[] columns = new ColumnVector[intermediate.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new ArrowColumnVector(intermediate.get(i));
    }
    ColumnarBatch batch = new ColumnarBatch(columns, groupCount);
    UnsafeProjection projection = UnsafeProjection$.MODULE$.create(exprs, attrs);
    projected = VectorSchemaRoot.create(ArrowSchemas.toArrow(spec.outputSchema, spec.timeZone), allocator);
    ArrowWriter writer = ArrowWriter.create(projected);
    Iterator<InternalRow> rows = batch.rowIterator();
    while (rows.hasNext()) {
      writer.write(projection.apply(rows.next()));
    }
    writer.finish();
    outputSources = projected.getFieldVectors().toArray(new FieldVector[0]);
  }

  private FieldVector normalizedCopy(FieldVector key, int n) {
    FieldVector out = key.getField().createVector(allocator);
    if (key instanceof Float8Vector src) {
      Float8Vector dst = (Float8Vector) out;
      dst.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (!src.isNull(i)) {
          double d = src.get(i);
          dst.set(i, Double.isNaN(d) ? Double.NaN : (d == 0.0 ? 0.0 : d));
        }
      }
    } else if (key instanceof Float4Vector src) {
      Float4Vector dst = (Float4Vector) out;
      dst.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (!src.isNull(i)) {
          float f = src.get(i);
          dst.set(i, Float.isNaN(f) ? Float.NaN : (f == 0.0f ? 0.0f : f));
        }
      }
    } else {
      out.close();
      throw new IllegalStateException("NormalizeNaNAndZero on a non-floating key: " + key.getField());
    }
    out.setValueCount(n);
    return out;
  }

  @Override
  public boolean hasNext() {
    switch (phase) {
      case GROUPS:
        if (outputSources != null && emitted < groupCount) {
          return true;
        }
        if (afterGroups == Phase.DONE) {
          close();
          return false;
        }
        releaseCurrent(false);
        releaseGroups(); // every built group is out: the table and kernels are no longer needed
        passThrough = new PartialPassThrough(allocator, spec.timeZone, heap);
        phase = Phase.PASS_THROUGH;
        // fall through
      case PASS_THROUGH:
        if (pending != null) {
          return true;
        }
        releaseCurrent(true); // the input iterator may reuse the vectors the last batch shared
        try {
          pending = passThroughBatch();
        } catch (OutOfMemoryException e) {
          close();
          throw TaskArrowMemory.outOfMemory(spec.operatorName, spec.memoryLimit, e);
        }
        if (pending != null) {
          return true;
        }
        close();
        return false;
      case PARTITIONS:
        try {
          if (nextPartitionRunner()) {
            return true;
          }
        } catch (RuntimeException | Error e) {
          close();
          throw e;
        }
        close();
        return false;
      case DONE:
        return false;
      default:
        throw new IllegalStateException(spec.operatorName + ": hasNext while " + phase);
    }
  }

  @Override
  public ColumnarBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    if (phase == Phase.PARTITIONS) {
      return partitionRunner.next(); // the partition's runner owns and releases its batches
    }
    releaseCurrent(phase == Phase.PASS_THROUGH);
    if (phase == Phase.PASS_THROUGH) {
      current = pending;
      pending = null;
      currentOwned.addAll(pendingOwned);
      pendingOwned.clear();
      return current;
    }
    int length = Math.min(spec.batchSize, groupCount - emitted);
    ColumnVector[] columns = new ColumnVector[outputSources.length];
    try {
      for (int i = 0; i < columns.length; i++) {
        TransferPair pair = outputSources[i].getTransferPair(allocator);
        pair.splitAndTransfer(emitted, length);
        columns[i] = new RowReadArrowColumnVector(pair.getTo());
      }
    } catch (OutOfMemoryException e) {
      for (ColumnVector c : columns) {
        if (c != null) {
          c.close();
        }
      }
      throw TaskArrowMemory.outOfMemory(spec.operatorName, spec.memoryLimit, e);
    }
    emitted += length;
    current = new ColumnarBatch(columns, length);
    return current;
  }

  /**
   * Releases the batch handed out last: a group batch whole; a pass-through batch ({@code sharesInput}) only
   * in the columns made for it, the others being the input's.
   */
  private void releaseCurrent(boolean sharesInput) {
    if (current != null) {
      if (!sharesInput) {
        current.close();
      } else {
        for (FieldVector v : currentOwned) {
          v.close();
        }
        currentOwned.clear();
      }
      current = null;
    }
  }

  /** Releases the table, the kernels and the group output columns (all groups emitted, or closing). */
  private void releaseGroups() {
    outputSources = null;
    for (FieldVector v : owned) {
      v.close();
    }
    owned.clear();
    intermediate.clear();
    if (projected != null) {
      projected.close();
      projected = null;
    }
    for (int i = 0; i < kernels.length; i++) {
      if (kernels[i] != null) {
        kernels[i].close();
        kernels[i] = null;
      }
    }
    if (table != null) {
      table.close();
      table = null;
    }
  }

  @Override
  public void close() {
    if (phase == Phase.DONE) {
      return;
    }
    boolean sharesInput = phase == Phase.PASS_THROUGH;
    phase = Phase.DONE;
    releaseCurrent(sharesInput);
    pending = null; // its shared columns belong to the input; its own ones are in pendingOwned
    for (FieldVector v : pendingOwned) {
      v.close();
    }
    pendingOwned.clear();
    releaseGroups();
    heap.close();
    try {
      if (memory != null) {
        memory.unregister(spill);
      }
      if (partitionRunner != null) {
        partitionRunner.close();
        partitionRunner = null;
      }
      if (partitionReader != null) {
        partitionReader.close();
        partitionReader = null;
      }
    } finally {
      if (partitions != null) {
        partitions.close();
      }
      metrics.peakMemory(Math.max(peakBytes, allocator.getPeakMemoryAllocation()));
      allocator.close();
    }
  }
}
