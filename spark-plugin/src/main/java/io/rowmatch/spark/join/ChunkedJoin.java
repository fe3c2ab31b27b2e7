package io.rowmatch.spark.join;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.memory.SpillFile;
import io.rowmatch.spark.memory.SpillMetrics;
import io.rowmatch.spark.memory.TaskMemory;
import io.rowmatch.spark.testing.TestFaults;

/**
 * A grace join's partition that partitioning no longer splits (one key holds more build rows than fit: extreme
 * skew) and whose build side does not fit: joined by chunks of its build rows. Each chunk holds as many build
 * rows as the task's memory allows; the whole probe partition (a spill file, read again per chunk) is joined
 * with it by a {@link HashJoinRunner}, which emits the chunk's pairs and, for a build-side outer/semi/anti join,
 * the chunk's build rows after the probe pass (each build row is in one chunk and meets every probe row). The
 * probe rows an outer, semi or anti join keeps by themselves depend on every chunk: the chunk passes record
 * which probe rows passed ({@link ProbeMatches}); a last pass over the probe file, against no build rows,
 * emits them. Slow (the probe partition is read once per chunk) but bounded by the task's memory.
 */
final class ChunkedJoin implements Iterator<ColumnarBatch>, AutoCloseable {
  /** The name {@link TestFaults} knows this phase by (a prefix of it selects only the chunk passes). */
  static final String FAULT_NAME_SUFFIX = " build chunks";

  private final JoinSpec spec;
  private final Expression condition;
  private final List<Attribute> conditionInput;
  private final TaskContext task;
  private final BufferAllocator allocator;
  private final TaskMemory memory;
  private final SpillMetrics metrics;
  private final boolean buildNullKey;
  private final long buildRows;
  private final Iterator<ColumnarBatch> buildInput;
  private final SpillFile probeFile;
  private final ProbeMatches probeMatches;
  private final long chargedBytes;
  /** The build batch the last chunk stopped at: the first of the next chunk (valid until buildInput moves). */
  private ColumnarBatch pending;
  private SpillFile.BatchReader probeReader;
  private HashJoinRunner current;
  private boolean lastPassDone;
  private int chunks;
  private boolean closed;

  /**
   * Starts with {@code first}, the chunk already built, and {@code pending}, the build batch it stopped at;
   * the rest of the partition's build rows come from {@code buildInput}. {@code buildNullKey}, {@code buildRows}
   * are the whole build side's facts for a null-aware anti join.
   */
  ChunkedJoin(JoinSpec spec, JoinBuildSide first, ColumnarBatch pending, Iterator<ColumnarBatch> buildInput,
      SpillFile probeFile, Expression condition, List<Attribute> conditionInput, TaskContext task,
      BufferAllocator allocator, TaskMemory memory, SpillMetrics metrics, boolean buildNullKey, long buildRows) {
    this.spec = spec;
    this.condition = condition;
    this.conditionInput = conditionInput;
    this.task = task;
    this.allocator = allocator;
    this.memory = memory;
    this.metrics = metrics;
    this.buildNullKey = buildNullKey;
    this.buildRows = buildRows;
    this.buildInput = buildInput;
    this.probeFile = probeFile;
    this.pending = pending;
    boolean trackProbe = spec.probeOuter() || spec.probeExistence();
    this.probeMatches = trackProbe ? new ProbeMatches(probeFile == null ? 0 : probeFile.rows()) : null;
    this.chargedBytes = probeMatches == null ? 0 : probeMatches.bytes();
    memory.reserve(chargedBytes);
    try {
      startChunk(first);
    } catch (RuntimeException | Error e) {
      try {
        close();
      } catch (RuntimeException | Error c) {
        e.addSuppressed(c);
      }
      throw e;
    }
  }

  private void startChunk(JoinBuildSide side) {
    chunks++;
    metrics.peakMemory(side.allocatedBytes());
    try {
      probeReader = probeFile == null ? null : probeFile.read(allocator);
    } catch (RuntimeException | Error e) {
      side.close();
      throw e;
    }
    Iterator<ColumnarBatch> probe = probeReader == null ? Collections.emptyIterator() : probeReader;
    current = HashJoinRunner.start(spec, side, buildNullKey, buildRows, side::close,
        TestFaults.wrap(probe, task, spec.operatorName + FAULT_NAME_SUFFIX), allocator, condition, conditionInput,
        task, false, probeMatches);
  }

  /** The next chunk of build rows, as many as fit; null when every build row was joined. */
  private JoinBuildSide nextChunk() {
    if (pending == null) {
      return null;
    }
    ColumnarBatch first = pending;
    pending = null;
    Iterator<ColumnarBatch> input = new Iterator<>() {
      private boolean firstTaken;

      @Override
      public boolean hasNext() {
        return !firstTaken || buildInput.hasNext();
      }

      @Override
      public ColumnarBatch next() {
        if (!firstTaken) {
          firstTaken = true;
          return first;
        }
        return buildInput.next();
      }
    };
    JoinBuildSide.Partial partial = JoinBuildSide.fromBatchesUntil(input, spec, allocator,
        (side, batch) -> GraceHashJoin.mustSpill(side, batch, memory, allocator));
    pending = partial.pending();
    return partial.finished();
  }

  @Override
  public boolean hasNext() {
    while (!closed) {
      if (current != null) {
        if (current.hasNext()) {
          return true;
        }
        endPass();
      }
      JoinBuildSide chunk = nextChunk();
      if (chunk != null) {
        startChunk(chunk);
      } else if (probeMatches != null && !lastPassDone) {
        // The probe rows kept by themselves: one pass against no build rows, with what every chunk found.
        lastPassDone = true;
        probeMatches.startApplying();
        startChunk(JoinBuildSide.fromBatches(Collections.emptyIterator(), spec, allocator));
        chunks--; // not a chunk of build rows
      } else {
        metrics.buildChunks(chunks);
        close();
      }
    }
    return false;
  }

  @Override
  public ColumnarBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return current.next(); // the pass's runner owns and releases its batches
  }

  /** Ends the current pass: its runner releases its chunk; memory Spark may have asked back is free now. */
  private void endPass() {
    try {
      current.close();
    } finally {
      current = null;
      if (probeReader != null) {
        probeReader.close();
        probeReader = null;
      }
      memory.spilled();
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
        endPass();
      }
    } finally {
      memory.unreserve(chargedBytes);
    }
  }

  @Override
  public String toString() {
    return spec.operatorName + FAULT_NAME_SUFFIX + " (" + chunks + " so far)";
  }
}
