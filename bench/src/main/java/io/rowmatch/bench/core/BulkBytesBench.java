package io.rowmatch.bench.core;

import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
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

import io.rowmatch.core.compare.RawMemory;

/**
 * Where BulkBytes switches from the long-by-long loop to ByteBuffer.mismatch (which pays two
 * reflective DirectByteBuffer constructions per call): equal ranges of each size, both ways.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class BulkBytesBench {
  @Param({"64", "256", "512", "1024", "4096", "65536"})
  public int bytes;

  private BufferAllocator allocator;
  private ArrowBuf a;
  private ArrowBuf b;

  @Setup(Level.Trial)
  public void setUp() {
    allocator = new RootAllocator();
    a = allocator.buffer(bytes);
    b = allocator.buffer(bytes);
    for (int i = 0; i < bytes; i++) {
      a.setByte(i, i * 31);
      b.setByte(i, i * 31);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    a.close();
    b.close();
    allocator.close();
  }

  @Benchmark
  public boolean longLoop() {
    return RawMemory.equalBytes(a.memoryAddress(), b.memoryAddress(), bytes);
  }

  @Benchmark
  public boolean vectorizedMismatch() {
    return MemoryUtil.directBuffer(a.memoryAddress(), bytes).mismatch(MemoryUtil.directBuffer(b.memoryAddress(), bytes)) < 0;
  }
}
