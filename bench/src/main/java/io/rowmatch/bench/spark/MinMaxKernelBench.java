package io.rowmatch.bench.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;
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
import org.openjdk.jmh.infra.Blackhole;

import io.rowmatch.spark.aggregate.AggregateKernel;
import io.rowmatch.spark.aggregate.FunctionKernel;
import io.rowmatch.spark.aggregate.FunctionSpec;
import io.rowmatch.spark.aggregate.MinMaxFunction;

/**
 * max() update over one Arrow batch of 8192 rows into 1024 groups, per value type:
 * <ul>
 *   <li>{@code rowmatch}: the plugin's kernel (decimal p <= 18 as unscaled longs, p > 18 as 128-bit words,
 *       strings by unsigned byte ranges copied to the heap once per batch);
 *   <li>{@code boxed} (the anchor): the obvious per-value code: {@code DecimalVector.getObject} and
 *       {@code BigDecimal.compareTo}; for strings {@code UTF8String.fromBytes(get(i))} and
 *       {@code compareTo}, keeping the winner per group (what a row-at-a-time implementation does).
 * </ul>
 * Group state persists across invocations (steady state: most rows do not replace the maximum).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class MinMaxKernelBench {
  private static final int ROWS = 8192;
  private static final int GROUPS = 1024;

  @Param({"decimal(18,2)", "decimal(38,2)", "string"})
  public String type;

  @Param({"rowmatch", "boxed"})
  public String impl;

  private BufferAllocator allocator;
  private FieldVector input;
  private final int[] groupIds = new int[ROWS];
  private AggregateKernel kernel;
  private BigDecimal[] bestDecimal;
  private UTF8String[] bestString;

  @Setup(Level.Trial)
  public void setUp() {
    allocator = new RootAllocator();
    Random rnd = new Random(42);
    for (int i = 0; i < ROWS; i++) {
      groupIds[i] = rnd.nextInt(GROUPS);
    }
    DataType t;
    if (type.equals("string")) {
      t = DataTypes.StringType;
      VarCharVector v = new VarCharVector("s", allocator);
      v.allocateNew();
      for (int i = 0; i < ROWS; i++) {
        // 8-24 bytes with a shared prefix, so comparisons read past the first bytes
        String digits = Long.toString(rnd.nextLong() & Long.MAX_VALUE, 36);
        String s = "customer#" + digits.substring(0, Math.min(digits.length(), 1 + rnd.nextInt(12)));
        v.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
      }
      v.setValueCount(ROWS);
      input = v;
    } else {
      int precision = type.startsWith("decimal(18") ? 18 : 38;
      t = new DecimalType(precision, 2);
      DecimalVector v = new DecimalVector("d", allocator, precision, 2);
      v.allocateNew(ROWS);
      BigInteger limit = BigInteger.TEN.pow(precision);
      for (int i = 0; i < ROWS; i++) {
        BigInteger u = new BigInteger(limit.bitLength() + 8, rnd).mod(limit);
        v.set(i, new BigDecimal(rnd.nextBoolean() ? u : u.negate(), 2));
      }
      v.setValueCount(ROWS);
      input = v;
    }
    FunctionKernel kind = type.equals("string") ? MinMaxFunction.MAX_BYTES
        : type.startsWith("decimal(18") ? MinMaxFunction.MAX_LONG : MinMaxFunction.MAX_DECIMAL128;
    StructField f = new StructField("m", t, true, Metadata.empty());
    kernel = new FunctionSpec(kind, new int[] {0}, false, false, false, new StructField[] {f}, f, "max")
        .newKernel(allocator, "UTC");
    bestDecimal = new BigDecimal[GROUPS];
    bestString = new UTF8String[GROUPS];
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    kernel.close();
    input.close();
    allocator.close();
  }

  @Benchmark
  public void update(Blackhole bh) {
    if (impl.equals("rowmatch")) {
      kernel.update(new ValueVector[] {input}, ROWS, groupIds, GROUPS);
    } else if (input instanceof DecimalVector d) {
      for (int i = 0; i < ROWS; i++) {
        if (d.isNull(i)) {
          continue;
        }
        BigDecimal x = d.getObject(i);
        int g = groupIds[i];
        if (bestDecimal[g] == null || x.compareTo(bestDecimal[g]) > 0) {
          bestDecimal[g] = x;
        }
      }
      bh.consume(bestDecimal);
    } else {
      VarCharVector s = (VarCharVector) input;
      for (int i = 0; i < ROWS; i++) {
        if (s.isNull(i)) {
          continue;
        }
        UTF8String x = UTF8String.fromBytes(s.get(i));
        int g = groupIds[i];
        if (bestString[g] == null || x.compareTo(bestString[g]) > 0) {
          bestString[g] = x;
        }
      }
      bh.consume(bestString);
    }
  }
}
