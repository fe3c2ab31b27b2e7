package io.rowmatch.bench.core;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import io.rowmatch.core.MultiColumnComparator;

/**
 * Row equality on 4 key columns (BigInt, Float8, VarChar of 8–24 bytes, Int), 10% nulls, as a hash probe
 * asks it: mostly pairs that are equal (every column gets compared), some that differ somewhere.
 * Anchor: {@link ClosureComparator}, the per-column-closure design the comparator replaces. Scores are
 * ns per row pair.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ComparatorBench {
  static final int PAIRS = 4096;

  @Param({"65536", "1000000"})
  int rows;

  /**
   * Which pairs each call compares. {@code fixed}: the same batch of {@link #PAIRS} probe rows on every call
   * (its build-side lines stay in cache between calls when they fit). {@code sweep}: the probe table in batch
   * order, a new batch of {@link #PAIRS} rows per call, as a hash join's probe meets its build side (no line
   * reused from the previous call).
   */
  @Param({"fixed"})
  String probe = "fixed";

  BufferAllocator allocator;
  List<FieldVector> left;
  List<FieldVector> right;
  boolean[] nullsEqual = {true, true, true, true};
  boolean[] nansEqual = {true, true, true, true};
  MultiColumnComparator rowmatch;
  ClosureComparator closures;
  int[] leftIds;
  int[] rightIds;
  /** The batches a call picks from, in turn: one for {@code fixed}, rows / PAIRS for {@code sweep}. */
  int[][] leftBatches;
  int[][] rightBatches;
  int nextBatch;
  boolean[] out = new boolean[PAIRS];

  @Setup(Level.Trial)
  public void setup() {
    allocator = new RootAllocator();
    Random rnd = new Random(2);
    int[] identity = new int[rows];
    int[] shuffled = new int[rows];
    for (int i = 0; i < rows; i++) {
      identity[i] = i;
      shuffled[i] = i;
    }
    for (int i = rows - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = shuffled[i];
      shuffled[i] = shuffled[j];
      shuffled[j] = t;
    }
    // The probe side in batch order, the build side holding the same rows in another order.
    left = columns(rows, new Random(1), identity);
    right = columns(rows, new Random(1), shuffled);
    rowmatch = MultiColumnComparator.build(left, right, nullsEqual, nansEqual);
    closures = new ClosureComparator(left, right, nullsEqual, nansEqual);
    int base = rnd.nextInt(rows - PAIRS);
    int batches;
    switch (probe) {
      case "fixed" -> batches = 1;
      case "sweep" -> {
        batches = rows / PAIRS;
        base = 0;
      }
      default -> throw new IllegalArgumentException("probe must be fixed or sweep: " + probe);
    }
    leftBatches = new int[batches][PAIRS];
    rightBatches = new int[batches][PAIRS];
    for (int b = 0; b < batches; b++) {
      for (int k = 0; k < PAIRS; k++) {
        int l = base + b * PAIRS + k;
        leftBatches[b][k] = l;
        // 80% candidates that truly match (all 4 columns compared), 20% that don't (a hash collision).
        rightBatches[b][k] = rnd.nextInt(10) < 8 ? shuffled[l] : rnd.nextInt(rows);
      }
    }
    leftIds = leftBatches[0];
    rightIds = rightBatches[0];
  }

  /** Points leftIds/rightIds at the batch this call compares. */
  void nextBatch() {
    int b = nextBatch;
    nextBatch = b + 1 == leftBatches.length ? 0 : b + 1;
    leftIds = leftBatches[b];
    rightIds = rightBatches[b];
  }

  /**
   * The 4 key columns with 10% nulls per column; the same seed gives the same values, value {@code i}
   * stored at row {@code order[i]}.
   */
  List<FieldVector> columns(int rows, Random rnd, int[] order) {
    BigIntVector a = new BigIntVector("a", allocator);
    Float8Vector b = new Float8Vector("b", allocator);
    VarCharVector c = new VarCharVector("c", allocator);
    IntVector d = new IntVector("d", allocator);
    a.allocateNew(rows);
    b.allocateNew(rows);
    c.allocateNew(rows * 16L, rows);
    byte[][] strings = new byte[rows][];
    d.allocateNew(rows);
    byte[] text = new byte[24];
    for (int v = 0; v < rows; v++) {
      int i = order[v];
      if (rnd.nextInt(10) == 0) {
        a.setNull(i);
      } else {
        a.set(i, rnd.nextLong());
      }
      if (rnd.nextInt(10) == 0) {
        b.setNull(i);
      } else {
        b.set(i, rnd.nextDouble());
      }
      if (rnd.nextInt(10) != 0) {
        int len = 8 + rnd.nextInt(17);
        for (int k = 0; k < len; k++) {
          text[k] = (byte) ('a' + rnd.nextInt(26));
        }
        strings[i] = java.util.Arrays.copyOf(text, len);
      }
      if (rnd.nextInt(10) == 0) {
        d.setNull(i);
      } else {
        d.set(i, rnd.nextInt());
      }
    }
    for (int i = 0; i < rows; i++) { // variable width is written in row order
      if (strings[i] == null) {
        c.setNull(i);
      } else {
        c.setSafe(i, strings[i]);
      }
    }
    a.setValueCount(rows);
    b.setValueCount(rows);
    c.setValueCount(rows);
    d.setValueCount(rows);
    return List.of(a, b, c, d);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    rowmatch.close();
    left.forEach(FieldVector::close);
    right.forEach(FieldVector::close);
    allocator.close();
  }

  @Benchmark
  @OperationsPerInvocation(PAIRS)
  public void closuresEqual(Blackhole bh) {
    nextBatch();
    int[] leftIds = this.leftIds;
    int[] rightIds = this.rightIds;
    for (int k = 0; k < PAIRS; k++) {
      bh.consume(closures.equal(leftIds[k], rightIds[k]));
    }
  }

  @Benchmark
  @OperationsPerInvocation(PAIRS)
  public void rowmatchEqual(Blackhole bh) {
    nextBatch();
    int[] leftIds = this.leftIds;
    int[] rightIds = this.rightIds;
    for (int k = 0; k < PAIRS; k++) {
      bh.consume(rowmatch.equal(leftIds[k], rightIds[k]));
    }
  }

  @Benchmark
  @OperationsPerInvocation(PAIRS)
  public boolean[] rowmatchEqualMany() {
    nextBatch();
    rowmatch.equalMany(leftIds, rightIds, PAIRS, out);
    return out;
  }
}
