package io.rowmatch.spark.join;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongConsumer;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.catalyst.expressions.Predicate$;
import org.apache.spark.sql.execution.joins.RowmatchBroadcastRows;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.core.table.JoinProbe;
import io.rowmatch.spark.arrow.ConvertOnReadColumn;
import io.rowmatch.spark.arrow.DeferredGatherVector;
import io.rowmatch.spark.expression.ColumnarExpressions;
import io.rowmatch.spark.memory.SpillMetrics;
import io.rowmatch.spark.memory.TaskArrowMemory;
import io.rowmatch.spark.testing.TestFaults;

/**
 * Executes one partition of a RowmatchHashJoin: probes each streamed Arrow batch against the build side's
 * JoinTable and emits Arrow batches of at most batchSize rows: per probe batch, the matching pairs (filtered by
 * the extra condition, if any; chunks of fewer than half a batch coalesced with the next probe batches' pairs),
 * then the probe rows an outer/semi/anti join keeps by themselves (an existence join: every probe row, with its
 * "exists" flag); the output claims no order. After the last probe batch, the build
 * rows a build-side outer (or build-left semi/anti) join keeps. Matches are tracked after the condition, so
 * "matched" means "has a pair that passes the condition", as in Spark. A semi, anti or existence join on the
 * probe side evaluates no pair of a probe row after its first passing one (an ANSI error there is one Spark
 * never raises: it stops at the first passing pair).
 */
public final class HashJoinRunner implements Iterator<ColumnarBatch>, AutoCloseable {
  private enum Phase { NEXT_PROBE_BATCH, PAIRS, PROBE_ROWS, BUILD_ROWS, DONE }

  private final JoinSpec spec;
  private final JoinBuildSide build;
  private final Runnable releaseBuild;
  private final Iterator<ColumnarBatch> probeInput;
  private final BufferAllocator allocator;
  private final JoinOutput output;
  private final JoinProbe probe;
  private final JoinKeyVectors probeKeys;
  /** Null-aware anti join whose build side holds a null key: no probe row survives. */
  private final boolean nullAwareNoRows;
  /** The whole build side has rows (a grace join's partition may be empty while the build side is not). */
  private final boolean buildNonEmpty;
  /**
   * An inner join's condition's comparison of a build column with a probe column (JoinBand), by which the build
   * side's rows of each key are ordered: each probe row meets only the run of them it may pass; else null.
   */
  private final JoinBand band;
  /** The condition on Spark's row predicate, when the columnar kernels do not support it (else null). */
  private final BasePredicate condition;
  /** The condition on the columnar kernels over a chunk of matched pairs, when they support it. */
  private final ColumnarExpressions columnarCondition;
  private final boolean hasCondition;
  /** The condition's input columns (left then right, as Spark's joined row) for the current probe batch. */
  private ValueVector[] conditionColumns;
  private int[][] conditionRows;
  private final ColumnarBatch buildRowView;
  private final JoinedRow joined = new JoinedRow();
  /** One bit per build row: has a (condition-passing) match; only when some output depends on it. */
  private final long[] buildMatched;
  private final boolean trackProbe;
  private final int[] pairProbe;
  private final int[] pairBuild;
  private final int[] selected;
  private boolean[] probePassed = new boolean[0];
  /** Scratch of {@link #firstPassingPairs}: the chunk's pairs and where each probe row's run starts. */
  private int[] chunkProbe = new int[0];
  private int[] chunkBuild = new int[0];
  private int[] runStart = new int[0];
  /** A chunked join's probe rows across chunks (null otherwise); the current batch's first row number. */
  private final ProbeMatches probeMatches;
  private long probeRowBase;
  private long probeRowsSeen;

  private Phase phase = Phase.NEXT_PROBE_BATCH;
  private ColumnarBatch probeBatch;
  private ValueVector[] probeVectors;
  /** Per probe column: read as an Arrow vector here (else passed on deferred when it arrives deferred). */
  private final boolean[] probeReadsVector;
  /** The one probe key column that may be looked up by id (see {@link DictionaryProbe}), or -1. */
  private final int keyByIds;
  private final DictionaryProbe dictionaryProbe;
  private int cursor;
  private ColumnarBatch pending;
  /** A chunk's own batch, emitted after the coalesced batch it would otherwise have been copied into. */
  private ColumnarBatch queued;
  private ColumnarBatch current;
  private boolean closed;

  private HashJoinRunner(JoinSpec spec, JoinBuildSide build, boolean buildNullKey, long buildRows,
      Runnable releaseBuild, Iterator<ColumnarBatch> probeInput, BufferAllocator allocator, Expression condition,
      List<Attribute> conditionInput, ProbeMatches probeMatches, boolean buildLivesWithTask) {
    this.spec = spec;
    this.probeMatches = probeMatches;
    this.build = build;
    this.releaseBuild = releaseBuild;
    this.probeInput = probeInput;
    this.allocator = allocator;
    this.output = new JoinOutput(spec, buildLivesWithTask);
    this.probe = build.table().newProbe();
    this.nullAwareNoRows = spec.nullAwareAnti && (buildNullKey || build.hasNullKey());
    this.buildNonEmpty = buildRows >= 0 ? buildRows > 0 : build.rowCount() > 0;
    if (nullAwareNoRows) {
      phase = Phase.DONE;
    }
    this.hasCondition = condition != null;
    this.columnarCondition = condition == null ? null : columnarCondition(condition, conditionInput);
    if (condition != null && columnarCondition == null) {
      this.condition = Predicate$.MODULE$.create(condition, CollectionConverters.asScala(conditionInput).toList());
      this.condition.initialize(TaskContext.getPartitionId());
      this.buildRowView = build.newRowView();
    } else {
      this.condition = null;
      this.buildRowView = null;
    }
    boolean trackBuild = spec.buildOuter() || spec.buildExistence();
    this.buildMatched = trackBuild ? new long[(build.rowCount() + 63) >>> 6] : null;
    this.trackProbe = spec.probeOuter() || spec.probeExistence();
    int chunk = spec.batchSize;
    this.pairProbe = new int[chunk];
    this.pairBuild = new int[chunk];
    this.selected = new int[chunk];
    this.probeKeys = spec.probeKeyVectors(allocator);
    this.probeReadsVector = probeColumnsRead(spec, probeKeys, condition, conditionInput);
    this.keyByIds = keyByIds(spec, probeKeys, condition, conditionInput);
    this.dictionaryProbe = keyByIds >= 0
        ? new DictionaryProbe(spec.probeSchema().fields()[keyByIds].dataType(), spec.timeZone) : null;
    // A shared build (a broadcast's) is probed by several tasks at once: its rows stay in build order.
    this.band = spec.kind == JoinSpec.Kind.INNER && !buildLivesWithTask
        ? orderedBand(spec, build, condition, conditionInput) : null;
  }

  /** The condition's band with the build side's rows of each key ordered by it, or null (see {@link #band}). */
  private static JoinBand orderedBand(JoinSpec spec, JoinBuildSide build, Expression condition,
      List<Attribute> conditionInput) {
    int bc = build.columns().size();
    int pc = spec.probeSchema().fields().length;
    if (condition == null || conditionInput.size() != bc + pc) {
      return null;
    }
    int leftCount = spec.buildLeft ? bc : pc;
    JoinBand band = JoinBand.find(condition, conditionInput.subList(0, leftCount),
        conditionInput.subList(leftCount, conditionInput.size()), spec.buildLeft);
    if (band == null || !plainInts(build.columns().get(band.buildColumn()))) {
      return null;
    }
    return build.table().orderRowsWithinKeys(build.columns().get(band.buildColumn())) ? band : null;
  }

  /** Int and date columns as Arrow lays them out (the band's values are read from their buffers). */
  private static boolean plainInts(ValueVector v) {
    return v instanceof IntVector || v instanceof DateDayVector;
  }

  /**
   * The probe key column that may be looked up by id (a scan's dictionary id, a deferred build column's build row):
   * the only key, a column (not computed) of a type whose dictionaries decode here, read by nothing else here (the
   * condition), and not a null-aware anti join's (which reads its nulls); else -1.
   */
  private static int keyByIds(JoinSpec spec, JoinKeyVectors keys, Expression condition,
      List<Attribute> conditionInput) {
    int width = spec.probeSchema().fields().length;
    if (spec.probeKeys.length != 1 || keys.computes() || spec.nullAwareAnti || spec.probeKeys[0] >= width
        || !DictionaryProbe.supports(spec.probeSchema().fields()[spec.probeKeys[0]].dataType())) {
      return -1;
    }
    int key = spec.probeKeys[0];
    int probeAt = spec.buildLeft ? spec.buildSchema().fields().length : 0;
    if (condition != null && condition.references().contains(conditionInput.get(probeAt + key))) {
      return -1;
    }
    return key;
  }

  /**
   * The probe columns this join reads as Arrow vectors (its keys, whatever computed keys read, and the columnar
   * condition's columns); the others, when they arrive deferred, are passed on deferred (JoinOutput).
   */
  private static boolean[] probeColumnsRead(JoinSpec spec, JoinKeyVectors keys, Expression condition,
      List<Attribute> conditionInput) {
    int width = spec.probeSchema().fields().length;
    boolean[] read = new boolean[width];
    if (keys.computes()) {
      java.util.Arrays.fill(read, true);
      return read;
    }
    for (int k : spec.probeKeys) {
      if (k < width) {
        read[k] = true;
      }
    }
    if (condition != null) {
      int probeAt = spec.buildLeft ? spec.buildSchema().fields().length : 0;
      for (int c = 0; c < width; c++) {
        read[c] |= condition.references().contains(conditionInput.get(probeAt + c));
      }
    }
    return read;
  }

  /** The condition on the columnar kernels, or null when one of its expressions is not supported there. */
  static ColumnarExpressions columnarCondition(Expression condition, List<Attribute> conditionInput) {
    scala.collection.immutable.Seq<Expression> one = CollectionConverters.asScala(List.of(condition)).toSeq();
    scala.collection.immutable.Seq<Attribute> input = CollectionConverters.asScala(conditionInput).toSeq();
    return ColumnarExpressions.unsupported(one, input) == null ? ColumnarExpressions.compile(one, input) : null;
  }

  /**
   * A shuffled hash join: both sides arrive co-partitioned; the build side is hashed by this task, or, when it
   * does not fit, both sides are partitioned to disk first (GraceHashJoin).
   */
  public static Iterator<ColumnarBatch> shuffled(JoinSpec spec, Iterator<ColumnarBatch> left,
      Iterator<ColumnarBatch> right, Expression condition, List<Attribute> conditionInput, TaskContext task,
      SpillMetrics metrics) {
    try {
      return GraceHashJoin.join(spec, spec.buildLeft ? left : right, spec.buildLeft ? right : left, condition,
          conditionInput, task, SpillMetrics.peakPerTask(task, metrics));
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory(spec.operatorName, spec.memoryLimit, e);
    }
  }

  /**
   * A broadcast hash join: the build side is hashed once per executor from the broadcast relation's rows and
   * shared by every task that probes it (see {@link BroadcastJoinTables}).
   */
  public static Iterator<ColumnarBatch> broadcast(JoinSpec spec, Iterator<ColumnarBatch> streamed,
      Broadcast<Object> relation, Expression condition, List<Attribute> conditionInput, TaskContext task,
      LongConsumer buildNanos) {
    BufferAllocator allocator = TaskArrowMemory.forTask(task, spec.memoryLimit);
    if (relation.value() instanceof ArrowBroadcast arrow) {
      String key = "arrow broadcast " + relation.id() + " " + spec.buildTableKey();
      JoinBuildSide build = BroadcastJoinTables.acquire(key, spec, a -> {
        long start = System.nanoTime(); // only the task that builds the shared table counts the time
        JoinBuildSide built = JoinBuildSide.fromRecords(arrow.records(), spec, a);
        buildNanos.accept(System.nanoTime() - start);
        return built;
      });
      return startOverShared(spec, build, false, key, streamed, allocator, condition, conditionInput, task);
    }
    // A semi/anti join without a condition only asks whether a key exists: one build row per key will do.
    // Part of the cache key, so an inner join of the same broadcast never gets the thinned table.
    boolean onePerKey = spec.probeExistence() && condition == null;
    String key = "broadcast " + relation.id() + " " + spec.buildTableKey() + (onePerKey ? " one row per key" : "");
    JoinBuildSide build = BroadcastJoinTables.acquire(key, spec, a -> {
      long start = System.nanoTime(); // only the task that builds the shared table counts the time
      JoinBuildSide built = JoinBuildSide.fromRows(RowmatchBroadcastRows.rows(relation.value(), onePerKey), spec, a);
      buildNanos.accept(System.nanoTime() - start);
      return built;
    });
    // Spark's null-aware relation keeps no rows once it saw a null key; it says so by its type.
    boolean nullKey = spec.nullAwareAnti && RowmatchBroadcastRows.hasNullKey(relation.value());
    return startOverShared(spec, build, nullKey, key, streamed, allocator, condition, conditionInput, task);
  }

  /**
   * The join over an executor's shared broadcast build side, held until the task ends (not just until the probe
   * side ends): the output passes build columns on deferred, and a batch of a join above may still read them.
   * Task completion listeners run last registered first, so the runner's batches are closed before the release.
   */
  private static Iterator<ColumnarBatch> startOverShared(JoinSpec spec, JoinBuildSide build, boolean nullKey,
      String key, Iterator<ColumnarBatch> streamed, BufferAllocator allocator, Expression condition,
      List<Attribute> conditionInput, TaskContext task) {
    if (task == null) {
      return start(spec, build, nullKey, -1, () -> BroadcastJoinTables.release(key), streamed, allocator, condition,
          conditionInput, null, true, null, false);
    }
    try {
      task.addTaskCompletionListener((TaskCompletionListener) ctx -> BroadcastJoinTables.release(key));
    } catch (RuntimeException | Error e) {
      BroadcastJoinTables.release(key);
      throw e;
    }
    return start(spec, build, nullKey, -1, () -> { }, streamed, allocator, condition, conditionInput, task, true,
        null, true);
  }

  /**
   * The join of one build side (and, for a grace join's partition, what the whole build side holds:
   * buildNullKey, buildRows; else false, -1) with its probe input.
   */
  static Iterator<ColumnarBatch> start(JoinSpec spec, JoinBuildSide build, boolean buildNullKey, long buildRows,
      Runnable releaseBuild, Iterator<ColumnarBatch> probeInput, BufferAllocator allocator, Expression condition,
      List<Attribute> conditionInput, TaskContext task, boolean wrapFaults) {
    return start(spec, build, buildNullKey, buildRows, releaseBuild, probeInput, allocator, condition, conditionInput,
        task, wrapFaults, null, false);
  }

  /** As above, one pass of a chunked join (see {@link ChunkedJoin}, {@link ProbeMatches}). */
  static HashJoinRunner start(JoinSpec spec, JoinBuildSide build, boolean buildNullKey, long buildRows,
      Runnable releaseBuild, Iterator<ColumnarBatch> probeInput, BufferAllocator allocator, Expression condition,
      List<Attribute> conditionInput, TaskContext task, boolean wrapFaults, ProbeMatches probeMatches) {
    return start(spec, build, buildNullKey, buildRows, releaseBuild, probeInput, allocator, condition, conditionInput,
        task, wrapFaults, probeMatches, false);
  }

  /**
   * As above; {@code buildLivesWithTask}: the build side outlives every output batch of the task (a broadcast's,
   * released when the task ends), so its columns are passed on deferred.
   */
  private static HashJoinRunner start(JoinSpec spec, JoinBuildSide build, boolean buildNullKey, long buildRows,
      Runnable releaseBuild, Iterator<ColumnarBatch> probeInput, BufferAllocator allocator, Expression condition,
      List<Attribute> conditionInput, TaskContext task, boolean wrapFaults, ProbeMatches probeMatches,
      boolean buildLivesWithTask) {
    HashJoinRunner runner;
    try {
      Iterator<ColumnarBatch> probe = wrapFaults
          ? TestFaults.wrap(probeInput, task, spec.operatorName) // test-only, off by default
          : probeInput;
      runner = new HashJoinRunner(spec, build, buildNullKey, buildRows, releaseBuild, probe, allocator, condition,
          conditionInput, probeMatches, buildLivesWithTask);
    } catch (RuntimeException | Error e) {
      releaseBuild.run();
      throw e;
    }
    TaskArrowMemory.closeWithTask(task, runner);
    return runner;
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    if (pending == null) {
      try {
        pending = produce();
      } catch (OutOfMemoryException e) {
        throw TaskArrowMemory.outOfMemory(spec.operatorName, spec.memoryLimit, e);
      }
    }
    if (pending != null) {
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
    releaseCurrent();
    current = pending;
    pending = null;
    return current;
  }

  private ColumnarBatch produce() {
    if (queued != null) {
      ColumnarBatch b = queued;
      queued = null;
      return b;
    }
    while (true) {
      switch (phase) {
        case NEXT_PROBE_BATCH -> {
          if (!probeInput.hasNext()) {
            probeBatch = null;
            probeVectors = null;
            output.probeBatch(null, null);
            phase = Phase.BUILD_ROWS;
            cursor = 0;
            if (output.appendedRows() > 0) {
              return output.flush();
            }
            continue;
          }
          ColumnarBatch b = probeInput.next();
          if (b.numRows() == 0) {
            continue;
          }
          startProbeBatch(b);
        }
        case PAIRS -> {
          // A batch being coalesced takes at most what it has room for.
          int m = probe.nextPairs(pairProbe, pairBuild, pairProbe.length - output.appendedRows());
          if (m == 0) {
            phase = Phase.PROBE_ROWS;
            cursor = 0;
            continue;
          }
          m = keepPassing(m);
          if (m > 0 && !spec.existence()) {
            ColumnarBatch out = emitPairs(m);
            if (out != null) {
              return out;
            }
          }
        }
        case PROBE_ROWS -> {
          if (trackProbe && probeMatches != null && !probeMatches.applying()) {
            // A chunk pass: remember which rows passed; the last pass emits them.
            probeMatches.record(probeRowBase, probePassed, probeBatch.numRows());
          } else if (trackProbe) {
            // Outer: rows without a passing match; semi: rows with one; anti: rows without; existence: every
            // row, with whether it had one.
            boolean all = spec.kind == JoinSpec.Kind.EXISTENCE;
            boolean keep = spec.kind == JoinSpec.Kind.LEFT_SEMI;
            int n = probeBatch.numRows();
            int count = 0;
            while (cursor < n && count < selected.length) {
              if (all || probePassed[cursor] == keep) {
                selected[count++] = cursor;
              }
              cursor++;
            }
            if (count > 0) {
              return output.gather(probeVectors, selected, build.columns(), null, count, all ? probePassed : null,
                  allocator);
            }
          }
          phase = Phase.NEXT_PROBE_BATCH;
        }
        case BUILD_ROWS -> {
          if (buildMatched != null) {
            boolean keep = spec.buildExistence() && spec.kind == JoinSpec.Kind.LEFT_SEMI;
            int n = build.rowCount();
            int count = 0;
            while (cursor < n && count < selected.length) {
              boolean matched = (buildMatched[cursor >>> 6] & (1L << cursor)) != 0;
              if (matched == keep) {
                selected[count++] = cursor;
              }
              cursor++;
            }
            if (count > 0) {
              return output.gather(null, null, build.columns(), selected, count, allocator);
            }
          }
          phase = Phase.DONE;
        }
        case DONE -> {
          return null;
        }
      }
    }
  }

  /**
   * The chunk's {@code m} kept pairs as a batch of their own when they fill half a batch or half their probe batch
   * (see below); else appended to the
   * batch being coalesced (across probe batches), which is emitted once it holds half a batch (null until then).
   * A selective condition or an inner join's misses leave chunks of a few rows, and every operator above pays
   * per batch (vectors allocated and released, kernels and lookups set up).
   */
  private ColumnarBatch emitPairs(int m) {
    int half = Math.max(1, pairProbe.length / 2);
    // A chunk of half its probe batch goes out on its own too: a scan hands over batches of 4096 rows, half a
    // default chunk, so a join keeping most of them copied the scan's columns it does not read (gathered, then
    // appended) where a batch of its own passes them on as selections, read once where something reads them
    // (TPC-DS q61's joins over store_sales). Not below an eighth of a chunk: small batches are still coalesced.
    int own = Math.min(half, Math.max(Math.max(1, pairProbe.length / 8), probeBatch.numRows() / 2));
    if (m >= own) {
      if (output.appendedRows() == 0) {
        return output.gather(probeVectors, pairProbe, build.columns(), pairBuild, m, allocator);
      }
      // A large chunk after a small one (a batch's tail, a short batch): the small one goes out as it is, and the
      // large one on its own next, its columns passed on as they are instead of copied into the coalesced batch.
      ColumnarBatch coalesced = output.flush();
      try {
        queued = output.gather(probeVectors, pairProbe, build.columns(), pairBuild, m, allocator);
      } catch (RuntimeException | Error e) {
        coalesced.close();
        throw e;
      }
      return coalesced;
    }
    output.append(probeVectors, pairProbe, build.columns(), pairBuild, m, pairProbe.length, allocator);
    return output.appendedRows() >= half ? output.flush() : null;
  }

  private void startProbeBatch(ColumnarBatch b) {
    int n = b.numRows();
    probeRowBase = probeRowsSeen;
    probeRowsSeen += n;
    probeBatch = b;
    probeVectors = new ValueVector[b.numCols()];
    DeferredGatherVector[] deferred = null;
    for (int c = 0; c < probeVectors.length; c++) {
      if (b.column(c) instanceof DeferredGatherVector d && c < probeReadsVector.length
          && (!probeReadsVector[c] || c == keyByIds)) {
        if (deferred == null) {
          deferred = new DeferredGatherVector[probeVectors.length];
        }
        deferred[c] = d; // passed on with its rows composed; read here only as a key by id
      } else if (b.column(c) instanceof ConvertOnReadColumn && c < probeReadsVector.length
          && (!probeReadsVector[c] || c == keyByIds)) {
        continue; // a scan's column not read here (or a key read by id): JoinOutput copies the rows it outputs
      } else {
        probeVectors[c] = JoinBuildSide.arrow(b.column(c), c, spec.operatorName);
      }
    }
    output.probeBatch(b, deferred);
    if (columnarCondition != null) {
      // Spark's joined row: the left side's columns, then the right's
      List<? extends ValueVector> buildColumns = build.columns();
      int pc = probeVectors.length;
      int bc = buildColumns.size();
      conditionColumns = new ValueVector[pc + bc];
      conditionRows = new int[pc + bc][];
      int probeAt = spec.buildLeft ? bc : 0;
      int buildAt = spec.buildLeft ? 0 : pc;
      for (int c = 0; c < pc; c++) {
        conditionColumns[probeAt + c] = probeVectors[c];
        conditionRows[probeAt + c] = pairProbe;
      }
      for (int c = 0; c < bc; c++) {
        conditionColumns[buildAt + c] = buildColumns.get(c);
        conditionRows[buildAt + c] = pairBuild;
      }
    }
    List<ValueVector> keyVectors = null;
    if (keyByIds < 0 || !dictionaryProbe.lookup(b.column(keyByIds), n, probe, allocator)) {
      if (keyByIds >= 0 && probeVectors[keyByIds] == null) {
        probeVectors[keyByIds] = JoinBuildSide.arrow(b.column(keyByIds), keyByIds, spec.operatorName);
      }
      keyVectors = probeKeys.of(probeVectors, b);
      probe.lookup(keyVectors, n);
    }
    if (band != null && plainInts(probeVectors[band.probeColumn()])) {
      probe.narrowToBand(probeVectors[band.probeColumn()], band.op());
    }
    if (trackProbe) {
      if (probePassed.length < n) {
        probePassed = new boolean[n];
      }
      for (int i = 0; i < n; i++) {
        probePassed[i] = !hasCondition && probe.hasMatch(i);
      }
      if (spec.nullAwareAnti && buildNonEmpty) {
        // NOT IN against a non-empty list is unknown, so false, for a null probe key: drop the row.
        ValueVector key = keyVectors.get(0);
        for (int i = 0; i < n; i++) {
          probePassed[i] |= key.isNull(i);
        }
      }
      if (probeMatches != null && probeMatches.applying()) {
        probeMatches.apply(probeRowBase, probePassed, n);
      }
    }
    // Semi/anti on the probe side without a condition need no pairs at all.
    phase = spec.probeExistence() && !hasCondition ? Phase.PROBE_ROWS : Phase.PAIRS;
    cursor = 0;
  }

  /** Drops pairs failing the condition (compacting the arrays) and records matches; returns the pairs kept. */
  private int keepPassing(int m) {
    int kept = m;
    boolean lazy = spec.probeExistence() && hasCondition;
    if (lazy) {
      // A probe row decided in an earlier chunk needs no more pairs (Spark stops at its first passing pair).
      kept = 0;
      for (int k = 0; k < m; k++) {
        if (!probePassed[pairProbe[k]]) {
          pairProbe[kept] = pairProbe[k];
          pairBuild[kept] = pairBuild[k];
          kept++;
        }
      }
      m = kept;
      if (m == 0) {
        return 0;
      }
    }
    if (columnarCondition != null) {
      long[] pass;
      try {
        pass = columnarCondition.select(columnarCondition.openRows(conditionColumns, conditionRows, m));
      } catch (RuntimeException e) {
        if (!lazy) {
          throw e;
        }
        // A pair raised an error (ANSI): Spark only evaluates a probe row's pairs up to its first passing one,
        // so redo this chunk that way; an error raised then is one Spark raises too.
        return firstPassingPairs(m);
      }
      kept = 0;
      for (int w = 0; w < pass.length; w++) {
        for (long bits = pass[w]; bits != 0; bits &= bits - 1) {
          int k = (w << 6) + Long.numberOfTrailingZeros(bits);
          pairProbe[kept] = pairProbe[k];
          pairBuild[kept] = pairBuild[k];
          kept++;
        }
      }
    } else if (condition != null) {
      kept = 0;
      for (int k = 0; k < m; k++) {
        if (lazy && probePassed[pairProbe[k]]) {
          continue; // decided by an earlier pair: Spark evaluates no more of its pairs
        }
        InternalRow p = probeBatch.getRow(pairProbe[k]);
        InternalRow b = buildRowView.getRow(pairBuild[k]);
        InternalRow row = spec.buildLeft ? joined.apply(b, p) : joined.apply(p, b);
        if (condition.eval(row)) {
          if (lazy) {
            probePassed[pairProbe[k]] = true;
          }
          pairProbe[kept] = pairProbe[k];
          pairBuild[kept] = pairBuild[k];
          kept++;
        }
      }
    }
    if (trackProbe && (columnarCondition != null || condition != null)) {
      for (int k = 0; k < kept; k++) {
        probePassed[pairProbe[k]] = true;
      }
    }
    if (buildMatched != null) {
      for (int k = 0; k < kept; k++) {
        int r = pairBuild[k];
        buildMatched[r >>> 6] |= 1L << r;
      }
    }
    return kept;
  }

  /**
   * The columnar condition over the chunk's first {@code m} pairs (grouped by probe row, as the probe emits them)
   * in rounds: round r evaluates the r-th pair of every probe row not yet passed, so no pair after a probe row's
   * first passing one is evaluated. Records the passed probe rows; returns how many pairs passed (semi, anti and
   * existence joins emit no pairs, so the arrays are left as scratch).
   */
  private int firstPassingPairs(int m) {
    if (chunkProbe.length < m) {
      chunkProbe = new int[pairProbe.length];
      chunkBuild = new int[pairBuild.length];
      runStart = new int[pairProbe.length + 1];
    }
    System.arraycopy(pairProbe, 0, chunkProbe, 0, m);
    System.arraycopy(pairBuild, 0, chunkBuild, 0, m);
    int runs = 0;
    for (int k = 0; k < m; k++) {
      if (k == 0 || chunkProbe[k] != chunkProbe[k - 1]) {
        runStart[runs++] = k;
      }
    }
    runStart[runs] = m;
    int passedPairs = 0;
    for (int round = 0; ; round++) {
      int n = 0;
      for (int r = 0; r < runs; r++) {
        int k = runStart[r] + round;
        if (k < runStart[r + 1] && !probePassed[chunkProbe[k]]) {
          pairProbe[n] = chunkProbe[k];
          pairBuild[n] = chunkBuild[k];
          n++;
        }
      }
      if (n == 0) {
        break;
      }
      long[] pass = columnarCondition.select(columnarCondition.openRows(conditionColumns, conditionRows, n));
      for (int w = 0; w < pass.length; w++) {
        for (long bits = pass[w]; bits != 0; bits &= bits - 1) {
          int k = (w << 6) + Long.numberOfTrailingZeros(bits);
          probePassed[pairProbe[k]] = true;
          passedPairs++;
        }
      }
    }
    return passedPairs;
  }

  private void releaseCurrent() {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    releaseCurrent();
    if (pending != null) {
      pending.close();
      pending = null;
    }
    if (queued != null) {
      queued.close();
      queued = null;
    }
    output.close();
    probeKeys.close();
    releaseBuild.run();
  }
}
