package io.rowmatch.bench.core;

import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.rowmatch.core.compare.ArrayRangeEquality;
import io.rowmatch.core.compare.RunPath;

/**
 * Calibrates RunPath's two thresholds: the scalar path against the run path (forced) for runs of
 * {@code run} valid values each followed by one null ({@code run = 0}: no nulls), at several lengths.
 * The run path should win from MIN_AVERAGE_RUN valid values per run, and from SHORT_CUTOFF values.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class RunPathBench {
  @Param({"0", "1", "2", "4", "8"})
  public int run;

  @Param({"16", "64", "4096"})
  public int n;

  private BufferAllocator allocator;
  private FieldVector left;
  private FieldVector right;

  @Setup(Level.Trial)
  public void setUp() {
    allocator = new RootAllocator();
    boolean[] nulls = new boolean[n];
    for (int i = 0; i < n; i++) {
      nulls[i] = run > 0 && i % (run + 1) == run;
    }
    left = ArrayEqualsData.build(allocator, "VarChar", n, nulls, "none");
    right = ArrayEqualsData.build(allocator, "VarChar", n, nulls, "none");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    left.close();
    right.close();
    allocator.close();
  }

  @Benchmark
  public boolean scalarPath() {
    return ArrayRangeEquality.equal(left, 0, right, 0, n, false, true, RunPath.SCALAR);
  }

  @Benchmark
  public boolean runPath() {
    return ArrayRangeEquality.equal(left, 0, right, 0, n, false, true, RunPath.FORCE_RUNS);
  }
}
