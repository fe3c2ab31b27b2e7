package io.rowmatch.bench.core;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
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

import io.rowmatch.core.arrow.ArrowCopy;

/**
 * Row copies of ArrowCopy (core.arrow): {@code gather} of 4096 random rows (10% of them -1, null padding) of a
 * 65536-row column into a fresh vector, as a join's output or a filter does; {@code append} of 4096 random rows
 * after the values of a growing vector, as first()/last() and the key tables do (the vector restarts every 64
 * appends). Columns: bigint and 10-30 byte strings, 20% nulls.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 8, time = 1)
public class ArrowCopyBench {
  private static final int SOURCE = 65536;
  private static final int COUNT = 4096;
  private static final int APPENDS = 64;

  @Param({"bigint", "varchar"})
  public String type;

  private BufferAllocator root;
  private FieldVector src;
  private int[] gatherRows;
  private int[] appendRows;
  private FieldVector grow;
  private int appended;
  private int rounds;
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();

  @Setup(Level.Trial)
  public void setup() {
    root = new RootAllocator();
    Random rnd = new Random(42);
    if (type.equals("bigint")) {
      BigIntVector v = new BigIntVector("l", root);
      v.allocateNew(SOURCE);
      for (int i = 0; i < SOURCE; i++) {
        if (rnd.nextInt(5) != 0) {
          v.set(i, rnd.nextLong());
        }
      }
      v.setValueCount(SOURCE);
      src = v;
    } else {
      VarCharVector v = new VarCharVector("s", root);
      v.allocateNew();
      for (int i = 0; i < SOURCE; i++) {
        if (rnd.nextInt(5) != 0) {
          StringBuilder b = new StringBuilder();
          for (int k = 10 + rnd.nextInt(21); k > 0; k--) {
            b.append((char) ('a' + rnd.nextInt(26)));
          }
          v.setSafe(i, b.toString().getBytes(StandardCharsets.UTF_8));
        }
      }
      v.setValueCount(SOURCE);
      src = v;
    }
    gatherRows = new int[COUNT];
    appendRows = new int[COUNT];
    for (int i = 0; i < COUNT; i++) {
      gatherRows[i] = rnd.nextInt(10) == 0 ? -1 : rnd.nextInt(SOURCE);
      appendRows[i] = rnd.nextInt(SOURCE);
    }
    grow = src.getField().createVector(root);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    grow.close();
    src.close();
    root.close();
  }

  @Benchmark
  public int gather() {
    try (FieldVector out = src.getField().createVector(root)) {
      ArrowCopy.gather(src, gatherRows, COUNT, out, scratch);
      return out.getNullCount();
    }
  }

  @Benchmark
  public int append() {
    if (rounds == APPENDS) {
      grow.close();
      grow = src.getField().createVector(root);
      appended = 0;
      rounds = 0;
    }
    ArrowCopy.append(src, appendRows, COUNT, grow, appended, scratch);
    appended += COUNT;
    rounds++;
    return appended;
  }
}
