package io.rowmatch.bench.core;

import java.util.List;
import java.util.Random;
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

import io.rowmatch.core.MultiColumnComparator;

/**
 * Build + close of a comparator over the 4 key columns at 1K and 1M rows: the time (and, with
 * {@code -prof gc}, the bytes allocated) must not depend on the row count.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class BuildBench {
  @Param({"1000", "1000000"})
  int rows;

  ComparatorBench data = new ComparatorBench();
  List<FieldVector> left;
  List<FieldVector> right;
  boolean[] flags = new boolean[4];

  @Setup(Level.Trial)
  public void setup() {
    data.allocator = new RootAllocator();
    int[] order = new int[rows];
    for (int i = 0; i < rows; i++) {
      order[i] = i;
    }
    left = data.columns(rows, new Random(1), order);
    right = data.columns(rows, new Random(2), order);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    left.forEach(FieldVector::close);
    right.forEach(FieldVector::close);
    BufferAllocator a = data.allocator;
    a.close();
  }

  @Benchmark
  public int buildAndClose() {
    try (MultiColumnComparator c = MultiColumnComparator.build(left, right, flags, flags)) {
      return c.columnCount();
    }
  }
}
