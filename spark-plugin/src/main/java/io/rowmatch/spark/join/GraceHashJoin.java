package io.rowmatch.spark.join;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.memory.SpillFile;
import io.rowmatch.spark.memory.SpillMetrics;
import io.rowmatch.spark.memory.SpillPartitions;
import io.rowmatch.spark.memory.TaskArrowMemory;
import io.rowmatch.spark.memory.TaskMemory;
import io.rowmatch.spark.testing.TestFaults;

/**
 * A shuffled hash join whose build side does not fit in memory: a grace hash join. The build rows read so
 * far and the rest of the build side, then the whole probe side, are written to {@link SpillPartitions} by
 * their keys' hash (equal keys land in the same partition number on both sides); then each partition pair is
 * joined in memory by a {@link HashJoinRunner}, or, when its build side still does not fit, partitioned again
 * by the next hash bits. Every join type is correct partition by partition (a key's rows on both sides are in
 * one partition; rows whose key can never match are kept or dropped wherever they land), except what a
 * null-aware anti join knows of the whole build side (a null key anywhere, any row at all): those two facts
 * are taken over all partitions and handed to each partition's join.
 *
 * <p>A partition that partitioning no longer splits (a single key whose build rows alone do not fit: extreme
 * skew), or past {@link SpillPartitions#MAX_LEVELS}, is joined by chunks of its build rows ({@link ChunkedJoin}).
 */
final class GraceHashJoin implements Iterator<ColumnarBatch>, AutoCloseable {
  /** Smaller build sides are not worth a spill. */
  static final long MIN_SPILL_BYTES = 256 << 10;

  private final JoinSpec spec;
  private final Expression condition;
  private final List<Attribute> conditionInput;
  private final TaskContext task;
  private final BufferAllocator allocator;
  private final SpillMetrics metrics;
  private final int level;
  private final SpillPartitions buildParts;
  private final SpillPartitions probeParts;
  private boolean buildNullKey;
  private long buildRows;
  /** Whether the build rows went to more than one partition: if not, partitioning again would not help. */
  private boolean split;
  private int next;
  private SpillFile.BatchReader buildReader;
  private SpillFile.BatchReader probeReader;
  private Iterator<ColumnarBatch> current;
  private boolean closed;

  /**
   * The shuffled join of {@code buildInput} and {@code probeInput}: in memory when the build side fits (the
   * usual case, as fast as before: one memory check per build batch), grace otherwise.
   */
  static Iterator<ColumnarBatch> join(JoinSpec spec, Iterator<ColumnarBatch> buildInput,
      Iterator<ColumnarBatch> probeInput, Expression condition, List<Attribute> conditionInput, TaskContext task,
      SpillMetrics metrics) {
    BufferAllocator allocator = TaskArrowMemory.forTask(task, spec.memoryLimit);
    TaskMemory memory = TaskArrowMemory.memoryOf(task);
    boolean mayPartition = memory != null && keyTypesMatch(spec);
    Iterator<ColumnarBatch> probe = TestFaults.wrap(probeInput, task, spec.operatorName); // test-only, off by default
    return join(spec, buildInput, probe, null, condition, conditionInput, task, metrics, allocator, memory, 0,
        mayPartition, null, -1);
  }

  /**
   * One level: buildNullKey/buildRows are the whole build side's facts when known (a partition's join), else
   * null/-1; probeFile is the partition's probe file (probeInput reads it; null at level 0 or when empty).
   */
  private static Iterator<ColumnarBatch> join(JoinSpec spec, Iterator<ColumnarBatch> buildInput,
      Iterator<ColumnarBatch> probeInput, SpillFile probeFile, Expression condition, List<Attribute> conditionInput,
      TaskContext task, SpillMetrics metrics, BufferAllocator allocator, TaskMemory memory, int level,
      boolean mayPartition, Boolean buildNullKey, long buildRows) {
    boolean spills = mayPartition && level < SpillPartitions.MAX_LEVELS;
    // A partition no further split: what does not fit is joined by build chunks (its probe side is a file).
    boolean chunks = !spills && level > 0 && memory != null;
    JoinBuildSide.Partial partial = JoinBuildSide.fromBatchesUntil(buildInput, spec, allocator,
        (side, batch) -> (spills || chunks) && mustSpill(side, batch, memory, allocator));
    if (partial.pending() == null) {
      metrics.peakMemory(partial.side().allocatedBytes());
      return HashJoinRunner.start(spec, partial.side(), buildNullKey != null && buildNullKey, buildRows,
          partial.side()::close, probeInput, allocator, condition, conditionInput, task, false);
    }
    if (chunks) {
      ChunkedJoin chunked = new ChunkedJoin(spec, partial.finished(), partial.pending(), buildInput, probeFile,
          condition, conditionInput, task, allocator, memory, metrics, buildNullKey != null && buildNullKey,
          buildRows);
      TaskArrowMemory.closeWithTask(task, chunked);
      return chunked;
    }
    metrics.peakMemory(partial.side().allocatedBytes());
    GraceHashJoin grace = new GraceHashJoin(spec, condition, conditionInput, task, allocator, metrics, level);
    TaskArrowMemory.closeWithTask(task, grace);
    try {
      grace.partition(partial, buildInput, probeInput, memory);
      if (buildNullKey != null) {
        grace.buildNullKey = buildNullKey;
        grace.buildRows = buildRows;
      }
    } catch (RuntimeException | Error e) {
      try {
        grace.close();
      } catch (RuntimeException | Error c) {
        e.addSuppressed(c);
      }
      throw e;
    }
    return grace;
  }

  static boolean mustSpill(JoinBuildSide side, ColumnarBatch batch, TaskMemory memory,
      BufferAllocator allocator) {
    long state = side.allocatedBytes();
    if (side.rowCount() == 0 || state < MIN_SPILL_BYTES) {
      return false;
    }
    long batchBytes = 0;
    for (int c = 0; c < batch.numCols(); c++) {
      batchBytes += JoinBuildSide.arrow(batch.column(c), c, "join").getBufferSize();
    }
    return memory.mustSpill(allocator, TaskMemory.batchNeed(batchBytes, state, side.rowCount(),
        (long) side.rowCount() + batch.numRows()), state);
  }

  /** Both sides' keys of the same Spark types, so equal keys hash alike on both sides. */
  static boolean keyTypesMatch(JoinSpec spec) {
    for (int i = 0; i < spec.buildKeys.length; i++) {
      if (!keyType(spec.buildKeys[i], spec.buildSchema().fields(), spec.buildComputed)
          .sameType(keyType(spec.probeKeys[i], spec.probeSchema().fields(), spec.probeComputed))) {
        return false;
      }
    }
    return true;
  }

  private static DataType keyType(int ordinal, org.apache.spark.sql.types.StructField[] side, Expression[] computed) {
    return ordinal < side.length ? side[ordinal].dataType() : computed[ordinal - side.length].dataType();
  }

  private GraceHashJoin(JoinSpec spec, Expression condition, List<Attribute> conditionInput, TaskContext task,
      BufferAllocator allocator, SpillMetrics metrics, int level) {
    this.spec = spec;
    this.condition = condition;
    this.conditionInput = conditionInput;
    this.task = task;
    this.allocator = allocator;
    this.metrics = metrics;
    this.level = level;
    this.buildParts = new SpillPartitions(spec.nansEqual, level, spec.batchSize);
    this.probeParts = new SpillPartitions(spec.nansEqual, level, spec.batchSize);
  }

  /** Writes the build rows built so far, the rest of the build side and the whole probe side to disk. */
  private void partition(JoinBuildSide.Partial partial, Iterator<ColumnarBatch> buildInput,
      Iterator<ColumnarBatch> probeInput, TaskMemory memory) {
    try (JoinKeyVectors keys = spec.buildKeyVectors(allocator)) {
      JoinBuildSide side = partial.side();
      try {
        List<FieldVector> columns = side.columns();
        ColumnarBatch view = side.newRowView();
        ValueVector[] arr = columns.toArray(new ValueVector[0]);
        int rows = side.rowCount();
        memory.whileSpilling(() -> {
          buildParts.write(keys.of(arr, view), columns, rows, allocator);
          return null;
        });
        buildNullKey |= side.hasNullKey();
        buildRows += rows;
      } finally {
        side.close();
      }
      writeBuild(partial.pending(), keys);
      while (buildInput.hasNext()) {
        writeBuild(buildInput.next(), keys);
      }
    }
    try (JoinKeyVectors keys = spec.probeKeyVectors(allocator)) {
      while (probeInput.hasNext()) {
        ColumnarBatch b = probeInput.next();
        if (b.numRows() > 0) {
          ValueVector[] arr = arrow(b);
          probeParts.write(keys.of(arr, b), List.of(arr), b.numRows(), allocator);
        }
      }
    }
    buildParts.finish();
    probeParts.finish();
    int nonEmpty = 0;
    for (int p = 0; p < SpillPartitions.FANOUT; p++) {
      if (buildParts.file(p) != null && buildParts.file(p).rows() > 0) {
        nonEmpty++;
      }
    }
    split = nonEmpty > 1;
    metrics.spilled(buildParts.newBytes() + probeParts.newBytes());
  }

  private void writeBuild(ColumnarBatch b, JoinKeyVectors keys) {
    int n = b.numRows();
    if (n == 0) {
      return;
    }
    ValueVector[] arr = arrow(b);
    List<ValueVector> k = keys.of(arr, b);
    if (spec.nullAwareAnti && k.get(0).getNullCount() > 0) {
      buildNullKey = true;
    }
    buildParts.write(k, List.of(arr), n, allocator);
    buildRows += n;
  }

  private ValueVector[] arrow(ColumnarBatch b) {
    ValueVector[] arr = new ValueVector[b.numCols()];
    for (int c = 0; c < arr.length; c++) {
      arr[c] = JoinBuildSide.arrow(b.column(c), c, spec.operatorName);
    }
    return arr;
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    try {
      while (true) {
        if (current != null) {
          if (current.hasNext()) {
            return true;
          }
          closeCurrent();
        }
        if (next == SpillPartitions.FANOUT) {
          close();
          return false;
        }
        int p = next++;
        SpillFile build = buildParts.file(p);
        SpillFile probe = probeParts.file(p);
        boolean noBuild = build == null || build.rows() == 0;
        boolean noProbe = probe == null || probe.rows() == 0;
        if (noBuild && noProbe) {
          continue;
        }
        buildReader = noBuild ? null : build.read(allocator);
        probeReader = noProbe ? null : probe.read(allocator);
        Iterator<ColumnarBatch> b = buildReader == null ? Collections.emptyIterator() : buildReader;
        Iterator<ColumnarBatch> q = probeReader == null ? Collections.emptyIterator() : probeReader;
        current = join(spec, b, q, noProbe ? null : probe, condition, conditionInput, task, metrics, allocator,
            TaskArrowMemory.memoryOf(task), level + 1, split, buildNullKey, buildRows);
      }
    } catch (RuntimeException | Error e) {
      Throwable failure = e instanceof org.apache.arrow.memory.OutOfMemoryException oom
          ? TaskArrowMemory.outOfMemory(spec.operatorName, spec.memoryLimit, oom) : e;
      try {
        close();
      } catch (RuntimeException | Error c) {
        failure.addSuppressed(c);
      }
      if (failure instanceof Error err) {
        throw err;
      }
      throw (RuntimeException) failure;
    }
  }

  @Override
  public ColumnarBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return current.next(); // the partition's join owns and releases its batches
  }

  /** Closes the partition just joined and deletes its files. */
  private void closeCurrent() {
    try {
      if (current instanceof AutoCloseable c) {
        c.close();
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      current = null;
      if (buildReader != null) {
        buildReader.close();
        buildReader = null;
      }
      if (probeReader != null) {
        probeReader.close();
        probeReader = null;
      }
      int p = next - 1;
      if (buildParts.file(p) != null) {
        buildParts.file(p).delete();
      }
      if (probeParts.file(p) != null) {
        probeParts.file(p).delete();
      }
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (current != null) {
        closeCurrent();
      }
    } finally {
      buildParts.close();
      probeParts.close();
    }
  }
}
