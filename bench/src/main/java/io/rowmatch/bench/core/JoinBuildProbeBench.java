package io.rowmatch.bench.core;

import io.rowmatch.core.table.JoinProbe;
import io.rowmatch.core.table.JoinTable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.UnsafeRowWriter;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.map.BytesToBytesMap;
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

import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Hash join, build then probe: {@code buildRows} build rows with distinct keys 0..buildRows-1, then
 * {@code probeRows} probe rows with keys spread over twice that range (about half match), every matching
 * (probe row, build row) pair consumed. Keys: one BigInt, or (BigInt, VarChar 10-20 bytes).
 * <ul>
 *   <li>{@code rowmatch}: {@link JoinTable} over Arrow batches of 4096 rows, pairs via {@link JoinProbe};
 *   <li>{@code spark}: UnsafeHashedRelation's shape: key UnsafeRow -> BytesToBytesMap with an 8-byte value
 *       (the build row id; several values per key allowed), probe by lookup and {@code nextValue};
 *   <li>{@code hashmap}: {@code HashMap<BoxedKey, Integer>} of the first build row per key plus a next-row
 *       chain array.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g", "-XX:+UseParallelGC"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class JoinBuildProbeBench {
  @Param({"1000000"})
  public int buildRows;

  @Param({"4000000"})
  public int probeRows;

  @Param({"bigint", "bigint_varchar"})
  public String keys;

  @Param({"rowmatch", "spark", "hashmap"})
  public String impl;

  private BufferAllocator root;
  private List<List<FieldVector>> buildBatches;
  private List<List<FieldVector>> probeBatches;
  private SparkKeys.Input sparkBuild;
  private SparkKeys.Input sparkProbe;
  private BoxedKey[] boxedBuild;
  private BoxedKey[] boxedProbe;
  private long peakBytes;
  private long lastPairs;

  @Setup(Level.Trial)
  public void setup() {
    boolean withString = keys.equals("bigint_varchar");
    KeyData.KeyIds buildIds = i -> i;
    KeyData.KeyIds probeIds = i -> KeyData.probeKeyOf(i, 2L * buildRows);
    switch (impl) {
      case "rowmatch":
        root = new RootAllocator();
        buildBatches = KeyData.arrowBatches(root, buildRows, buildIds, withString);
        probeBatches = KeyData.arrowBatches(root, probeRows, probeIds, withString);
        break;
      case "spark":
        sparkBuild = new SparkKeys.Input(buildRows, buildIds, withString);
        sparkProbe = new SparkKeys.Input(probeRows, probeIds, withString);
        break;
      case "hashmap":
        // Boxed rows as a Java engine would hold them; the key objects are made in setup for both sides.
        boxedBuild = boxed(buildRows, buildIds, withString);
        boxedProbe = boxed(probeRows, probeIds, withString);
        break;
      default:
        throw new IllegalArgumentException(impl);
    }
  }

  private static BoxedKey[] boxed(int rows, KeyData.KeyIds ids, boolean withString) {
    BoxedKey[] out = new BoxedKey[rows];
    for (int i = 0; i < rows; i++) {
      long k = ids.of(i);
      out[i] = new BoxedKey(KeyData.bigint(k), withString ? KeyData.string(k) : null);
    }
    return out;
  }

  private List<Field> keyFields() {
    Field a = new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null);
    Field b = new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    return keys.equals("bigint_varchar") ? List.of(a, b) : List.of(a);
  }

  @Benchmark
  public long buildAndProbe() {
    switch (impl) {
      case "rowmatch":
        return rowmatch();
      case "spark":
        return spark();
      default:
        return hashmap();
    }
  }

  private long rowmatch() {
    List<Field> fields = keyFields();
    boolean[] flags = new boolean[fields.size()];
    try (BufferAllocator a = root.newChildAllocator("bench", 0, Long.MAX_VALUE);
        JoinTable table = new JoinTable(a, fields, flags, flags, "bench")) {
      for (List<FieldVector> batch : buildBatches) {
        table.addBatch(batch, batch.get(0).getValueCount());
      }
      table.finish();
      JoinProbe probe = table.newProbe();
      int[] pr = new int[KeyData.BATCH];
      int[] br = new int[KeyData.BATCH];
      long sum = 0;
      long pairs = 0;
      for (List<FieldVector> batch : probeBatches) {
        probe.lookup(batch, batch.get(0).getValueCount());
        int n;
        while ((n = probe.nextPairs(pr, br)) > 0) {
          for (int k = 0; k < n; k++) {
            sum += br[k] ^ pr[k];
          }
          pairs += n;
        }
      }
      peakBytes = Math.max(peakBytes, a.getPeakMemoryAllocation());
      lastPairs = pairs;
      return sum;
    }
  }

  private long spark() {
    TaskMemoryManager tmm = SparkKeys.taskMemoryManager(4L << 30);
    // UnsafeHashedRelation sizes the map for the build row count up front.
    BytesToBytesMap map = new BytesToBytesMap(tmm, Math.max(64, (int) Math.min(1 << 29, buildRows * 3L / 2)),
        tmm.pageSizeBytes());
    try {
      int fields = sparkBuild.b == null ? 1 : 2;
      UnsafeRowWriter writer = new UnsafeRowWriter(fields, 32);
      long[] value = new long[1];
      for (int i = 0; i < buildRows; i++) {
        UnsafeRow key = SparkKeys.key(writer, sparkBuild, i);
        BytesToBytesMap.Location loc = map.lookup(key.getBaseObject(), key.getBaseOffset(), key.getSizeInBytes(),
            key.hashCode());
        value[0] = i;
        if (!loc.append(key.getBaseObject(), key.getBaseOffset(), key.getSizeInBytes(), value,
            Platform.LONG_ARRAY_OFFSET, 8)) {
          throw new IllegalStateException("BytesToBytesMap could not grow");
        }
      }
      long sum = 0;
      long pairs = 0;
      BytesToBytesMap.Location loc = map.new Location();
      for (int i = 0; i < probeRows; i++) {
        UnsafeRow key = SparkKeys.key(writer, sparkProbe, i);
        map.safeLookup(key.getBaseObject(), key.getBaseOffset(), key.getSizeInBytes(), loc, key.hashCode());
        if (loc.isDefined()) {
          do {
            sum += Platform.getLong(loc.getValueBase(), loc.getValueOffset()) ^ (i & 4095);
            pairs++;
          } while (loc.nextValue());
        }
      }
      peakBytes = Math.max(peakBytes, map.getPeakMemoryUsedBytes());
      lastPairs = pairs;
      return sum;
    } finally {
      map.free();
    }
  }

  private long hashmap() {
    HashMap<BoxedKey, Integer> first = new HashMap<>();
    int[] next = new int[buildRows];
    for (int i = 0; i < buildRows; i++) {
      Integer prev = first.put(boxedBuild[i], i);
      next[i] = prev == null ? -1 : prev;
    }
    long sum = 0;
    long pairs = 0;
    for (int i = 0; i < probeRows; i++) {
      Integer head = first.get(boxedProbe[i]);
      if (head != null) {
        for (int r = head; r >= 0; r = next[r]) {
          sum += r ^ (i & 4095);
          pairs++;
        }
      }
    }
    lastPairs = pairs;
    return sum;
  }

  @TearDown(Level.Trial)
  public void teardown() {
    System.out.printf("MEMORY JoinBuildProbeBench impl=%s keys=%s buildRows=%d pairs=%d peakBytes=%d bytesPerBuildRow=%.1f%n",
        impl, keys, buildRows, lastPairs, peakBytes, (double) peakBytes / buildRows);
    if (buildBatches != null) {
      buildBatches.forEach(b -> b.forEach(FieldVector::close));
      probeBatches.forEach(b -> b.forEach(FieldVector::close));
    }
    if (root != null) {
      root.close();
    }
  }
}
