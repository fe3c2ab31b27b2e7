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

import io.rowmatch.core.ArrayEquals;
import io.rowmatch.core.compare.ArrayRangeEquality;
import io.rowmatch.core.compare.RunPath;

/**
 * Short arrays with alternating nulls (issue 3): the chosen path must not be more than 5% slower than
 * the scalar path it falls back to (the Go review's regression: sampling before the length cutoff).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ArrayEqualsShortBench {
  @Param({"VarChar", "VarBinary", "LargeVarChar", "LargeVarBinary"})
  public String type;

  @Param({"4", "8", "16", "32", "64", "128"})
  public int n;

  private BufferAllocator allocator;
  private FieldVector left;
  private FieldVector right;

  @Setup(Level.Trial)
  public void setUp() {
    allocator = new RootAllocator();
    boolean[] nulls = ArrayEqualsData.nulls("alternating", n);
    left = ArrayEqualsData.build(allocator, type, n, nulls, "none");
    right = ArrayEqualsData.build(allocator, type, n, nulls, "none");
    if (!ArrayEquals.equals(left, right)) {
      throw new IllegalStateException("benchmark data broken");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    left.close();
    right.close();
    allocator.close();
  }

  @Benchmark
  public boolean rowmatch() {
    return ArrayEquals.equals(left, right);
  }

  @Benchmark
  public boolean rowmatchScalarPath() {
    return ArrayRangeEquality.equal(left, 0, right, 0, n, false, true, RunPath.SCALAR);
  }
}
