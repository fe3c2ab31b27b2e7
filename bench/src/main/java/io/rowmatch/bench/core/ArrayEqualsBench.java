package io.rowmatch.bench.core;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
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
 * Whole-array equality of 65,536 values of 32 bytes (issue 3). Anchors, measured in the same run:
 * Arrow Java's VectorEqualsVisitor (same field names, default settings; and in its own fork with
 * arrow.enable_unsafe_memory_access, which removes ArrowBuf's bounds checks), one vectorized compare of
 * the payload bytes (the limit no value-aware compare can beat), and Rowmatch's own scalar path.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ArrayEqualsBench {
  @Param({"VarChar", "VarBinary", "LargeVarChar", "LargeVarBinary"})
  public String type;

  /** equal; nulls10 (10% random nulls); nulls50 (alternating); mismatchLast (last byte); lengthLast (last value longer). */
  @Param({"equal", "nulls10", "nulls50", "mismatchLast", "lengthLast"})
  public String shape;

  static final int N = 65_536;

  private BufferAllocator allocator;
  private FieldVector left;
  private FieldVector right;
  private ByteBuffer leftPayload;
  private ByteBuffer rightPayload;

  @Setup(Level.Trial)
  public void setUp() {
    allocator = new RootAllocator();
    String pattern = shape.equals("nulls10") ? "10%" : shape.equals("nulls50") ? "alternating" : "none";
    String change = shape.equals("mismatchLast") ? "lastByte" : shape.equals("lengthLast") ? "lastLonger" : "none";
    boolean[] nulls = ArrayEqualsData.nulls(pattern, N);
    left = ArrayEqualsData.build(allocator, type, N, nulls, "none");
    right = ArrayEqualsData.build(allocator, type, N, nulls, change);
    int bytes = (int) ArrayEqualsData.payloadBytes(left);
    leftPayload = MemoryUtil.directBuffer(left.getDataBufferAddress(), bytes);
    rightPayload = MemoryUtil.directBuffer(right.getDataBufferAddress(), bytes);
    boolean expected = change.equals("none");
    if (ArrayEquals.equals(left, right) != expected || VectorEqualsVisitor.vectorEquals(left, right) != expected) {
      throw new IllegalStateException("benchmark data broken for " + type + " " + shape);
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
    return ArrayRangeEquality.equal(left, 0, right, 0, N, false, true, RunPath.SCALAR);
  }

  @Benchmark
  public boolean arrowVisitor() {
    return VectorEqualsVisitor.vectorEquals(left, right);
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = "-Darrow.enable_unsafe_memory_access=true")
  public boolean arrowVisitorUnsafe() {
    return VectorEqualsVisitor.vectorEquals(left, right);
  }

  /** The limit: one vectorized compare of the whole payload, ignoring offsets and validity. */
  @Benchmark
  public int payloadMemoryCompare() {
    return leftPayload.mismatch(rightPayload);
  }
}
