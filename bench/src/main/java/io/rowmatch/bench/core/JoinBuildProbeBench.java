package io.rowmatch.bench.core;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

import io.rowmatch.core.table.JoinProbe;
import io.rowmatch.core.table.JoinTable;

/**
 * Hash join, build then probe: {@code buildRows} build rows with distinct keys 0..buildRows-1, then
 * {@code probeRows} probe rows with keys spread over {@code probeSpread} times that range (by default twice:
 * about half match), every matching
 * (probe row, build row) pair consumed. Keys: one BigInt, (BigInt, VarChar 10-20 bytes) or (BigInt, BigInt).
 * <ul>
 *   <li>{@code rowmatch}: {@link JoinTable} over Arrow batches of 4096 rows, pairs via {@link JoinProbe};
 *   <li>{@code spark}: UnsafeHashedRelation's shape: key UnsafeRow -> BytesToBytesMap with an 8-byte value
 *       (the build row id; several values per key allowed), probe by lookup and {@code nextValue};
 *   <li>{@code hashmap}: {@code HashMap<BoxedKey, Integer>} of the first build row per key plus a next-row
 *       chain array; each row boxed (long + fresh String) first.
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

  /**
   * Probe keys are spread over {@code probeSpread x buildRows} key ids, so about 1/probeSpread of the probe rows
   * match. 2 is a join where half the rows match; 150 is TPC-H q8's first join (1,300 part keys of 200K, 6M
   * lineitem rows probing): a selective join whose probes are mostly for absent keys.
   */
  @Param({"2"})
  public int probeSpread;

  @Param({"bigint", "bigint_varchar", "bigint_bigint"})
  public String keys;

  @Param({"rowmatch", "spark", "hashmap"})
  public String impl;

  private BufferAllocator root;
  private List<List<FieldVector>> buildBatches;
  private List<List<FieldVector>> probeBatches;
  private SparkKeys.Input sparkBuild;
  private SparkKeys.Input sparkProbe;
  private long[] buildLongs;
  private Object[] buildSeconds;
  private long[] probeLongs;
  private Object[] probeSeconds;
  private long peakBytes;
  private long lastPairs;
  private Object retained;

  @Setup(Level.Trial)
  public void setup() {
    KeyData.Shape shape = KeyData.Shape.of(keys);
    KeyData.KeyIds buildIds = i -> i;
    KeyData.KeyIds probeIds = i -> KeyData.probeKeyOf(i, (long) probeSpread * buildRows);
    switch (impl) {
      case "rowmatch":
        root = new RootAllocator();
        buildBatches = KeyData.arrowBatches(root, buildRows, buildIds, shape);
        probeBatches = KeyData.arrowBatches(root, probeRows, probeIds, shape);
        break;
      case "spark":
        sparkBuild = new SparkKeys.Input(buildRows, buildIds, shape);
        sparkProbe = new SparkKeys.Input(probeRows, probeIds, shape);
        break;
      case "hashmap":
        buildLongs = new long[buildRows];
        buildSeconds = shape == KeyData.Shape.BIGINT ? null : new Object[buildRows];
        fill(buildIds, buildLongs, buildSeconds, shape);
        probeLongs = new long[probeRows];
        probeSeconds = shape == KeyData.Shape.BIGINT ? null : new Object[probeRows];
        fill(probeIds, probeLongs, probeSeconds, shape);
        break;
      default:
        throw new IllegalArgumentException(impl);
    }
  }

  /** The second column's values as the boxed key holds them: a byte[] (made a fresh String per row) or a Long. */
  private static void fill(KeyData.KeyIds ids, long[] longs, Object[] seconds, KeyData.Shape shape) {
    for (int i = 0; i < longs.length; i++) {
      long k = ids.of(i);
      longs[i] = KeyData.bigint(k);
      if (shape == KeyData.Shape.BIGINT_VARCHAR) {
        seconds[i] = KeyData.varchar(k);
      } else if (shape == KeyData.Shape.BIGINT_BIGINT) {
        seconds[i] = KeyData.secondBigint(k);
      }
    }
  }

  /** Boxing is part of this path: a fresh key (and String, hash not cached; or Long) per row. */
  private static BoxedKey box(long[] longs, Object[] seconds, int i) {
    Object second = seconds == null ? null : seconds[i];
    if (second instanceof byte[] bytes) {
      second = new String(bytes, StandardCharsets.ISO_8859_1);
    } else if (second instanceof Long l) {
      second = Long.valueOf(l.longValue());
    }
    return new BoxedKey(longs[i], second);
  }

  private List<Field> keyFields() {
    Field a = new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null);
    return switch (KeyData.Shape.of(keys)) {
      case BIGINT -> List.of(a);
      case BIGINT_VARCHAR -> List.of(a, new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
      case BIGINT_BIGINT -> List.of(a, new Field("c", FieldType.nullable(new ArrowType.Int(64, true)), null));
    };
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
      int fields = sparkBuild.fields();
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
    boolean measure = peakBytes == 0;
    long before = measure ? HeapMeasure.usedAfterGc() : 0;
    HashMap<BoxedKey, Integer> first = new HashMap<>();
    int[] next = new int[buildRows];
    for (int i = 0; i < buildRows; i++) {
      Integer prev = first.put(box(buildLongs, buildSeconds, i), i);
      next[i] = prev == null ? -1 : prev;
    }
    if (measure) {
      // Counts the map, its nodes, keys, their Strings, the Integers and the chain array.
      retained = new Object[] {first, next};
      peakBytes = HeapMeasure.usedAfterGc() - before;
      retained = null;
    }
    long sum = 0;
    long pairs = 0;
    for (int i = 0; i < probeRows; i++) {
      Integer head = first.get(box(probeLongs, probeSeconds, i));
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
