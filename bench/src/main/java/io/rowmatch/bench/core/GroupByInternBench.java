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

import io.rowmatch.core.table.GroupTable;

/**
 * Group-by interning: every row of {@code rows} (BigInt, VarChar 10-20 bytes) mapped to a dense group id,
 * at {@code distinct} distinct keys. Implementations:
 * <ul>
 *   <li>{@code rowmatch}: {@link GroupTable#intern} over Arrow batches of 4096 rows;
 *   <li>{@code spark}: what HashAggregateExec does per row: write the key UnsafeRow, hash it (Murmur3 over
 *       its words, as {@code UnsafeRow.hashCode}), {@link BytesToBytesMap#lookup}, append key + 8-byte value
 *       when new, under a TaskMemoryManager;
 *   <li>{@code hashmap}: {@code HashMap<BoxedKey, Integer>}, each row boxed (long + fresh String) first.
 * </ul>
 * Peak memory per distinct key is printed at the end of each trial (lines starting with "MEMORY").
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g", "-XX:+UseParallelGC"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class GroupByInternBench {
  @Param({"4000000"})
  public int rows;

  @Param({"100", "100000", "4000000"})
  public int distinct;

  @Param({"rowmatch", "spark", "hashmap"})
  public String impl;

  private BufferAllocator root;
  private List<List<FieldVector>> batches;
  private SparkKeys.Input sparkInput;
  private long[] longs;
  private byte[][] strings;
  private int[] groupIds;
  private int[] firstRows;
  private long peakBytes;
  private long lastGroups;
  private Object retained;

  private static final List<Field> KEY_FIELDS = List.of(
      new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null),
      new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null));

  @Setup(Level.Trial)
  public void setup() {
    KeyData.KeyIds ids = i -> KeyData.keyOf(i, distinct);
    switch (impl) {
      case "rowmatch":
        root = new RootAllocator();
        batches = KeyData.arrowBatches(root, rows, ids, KeyData.Shape.BIGINT_VARCHAR);
        groupIds = new int[KeyData.BATCH];
        firstRows = new int[KeyData.BATCH];
        break;
      case "spark":
        sparkInput = new SparkKeys.Input(rows, ids, KeyData.Shape.BIGINT_VARCHAR);
        break;
      case "hashmap":
        longs = new long[rows];
        strings = new byte[rows][];
        for (int i = 0; i < rows; i++) {
          long k = ids.of(i);
          longs[i] = KeyData.bigint(k);
          strings[i] = KeyData.varchar(k);
        }
        break;
      default:
        throw new IllegalArgumentException(impl);
    }
  }

  @Benchmark
  public long intern() {
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
    try (BufferAllocator a = root.newChildAllocator("bench", 0, Long.MAX_VALUE);
        GroupTable table = new GroupTable(a, KEY_FIELDS, new boolean[] {true, true}, new boolean[] {true, true},
            "bench")) {
      long sum = 0;
      for (List<FieldVector> batch : batches) {
        int n = batch.get(0).getValueCount();
        table.intern(batch, n, groupIds, firstRows);
        sum += groupIds[n - 1];
      }
      peakBytes = Math.max(peakBytes, a.getPeakMemoryAllocation());
      lastGroups = table.groupCount();
      return sum + table.groupCount();
    }
  }

  private long spark() {
    TaskMemoryManager tmm = SparkKeys.taskMemoryManager(4L << 30);
    // Spark's aggregation map starts at 64K slots (UnsafeFixedWidthAggregationMap's default).
    BytesToBytesMap map = new BytesToBytesMap(tmm, 1 << 16, tmm.pageSizeBytes());
    try {
      UnsafeRowWriter writer = new UnsafeRowWriter(2, 32);
      long[] value = new long[1];
      long sum = 0;
      int next = 0;
      for (int i = 0; i < rows; i++) {
        UnsafeRow key = SparkKeys.key(writer, sparkInput, i);
        BytesToBytesMap.Location loc = map.lookup(key.getBaseObject(), key.getBaseOffset(), key.getSizeInBytes(),
            key.hashCode());
        int id;
        if (loc.isDefined()) {
          id = (int) Platform.getLong(loc.getValueBase(), loc.getValueOffset());
        } else {
          id = next++;
          value[0] = id;
          if (!loc.append(key.getBaseObject(), key.getBaseOffset(), key.getSizeInBytes(), value,
              Platform.LONG_ARRAY_OFFSET, 8)) {
            throw new IllegalStateException("BytesToBytesMap could not grow");
          }
        }
        sum += id;
      }
      peakBytes = Math.max(peakBytes, map.getPeakMemoryUsedBytes());
      lastGroups = map.numKeys();
      return sum;
    } finally {
      map.free();
    }
  }

  private long hashmap() {
    boolean measure = peakBytes == 0;
    long before = measure ? HeapMeasure.usedAfterGc() : 0;
    HashMap<BoxedKey, Integer> map = new HashMap<>();
    long sum = 0;
    for (int i = 0; i < rows; i++) {
      // Boxing is part of this path: a fresh String per row (its hash is not cached yet), as when rows are
      // materialized from bytes.
      BoxedKey key = new BoxedKey(longs[i], new String(strings[i], StandardCharsets.ISO_8859_1));
      Integer id = map.get(key);
      if (id == null) {
        id = map.size();
        map.put(key, id);
      }
      sum += id;
    }
    lastGroups = map.size();
    if (measure) {
      // Counts the map, its nodes, keys, their Strings and the Integers.
      retained = map;
      peakBytes = HeapMeasure.usedAfterGc() - before;
      retained = null;
    }
    return sum;
  }

  @TearDown(Level.Trial)
  public void teardown() {
    System.out.printf("MEMORY GroupByInternBench impl=%s rows=%d distinct=%d groups=%d peakBytes=%d bytesPerKey=%.1f%n",
        impl, rows, distinct, lastGroups, peakBytes, (double) peakBytes / Math.max(1, lastGroups));
    if (batches != null) {
      batches.forEach(b -> b.forEach(FieldVector::close));
    }
    if (root != null) {
      root.close();
    }
  }
}
