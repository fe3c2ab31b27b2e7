package io.rowmatch.bench.spark;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.UnsafeRowSerializer;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.rowmatch.spark.arrow.RowsToArrowBatches;
import io.rowmatch.spark.shuffle.PartitionedBatchEncoder;
import io.rowmatch.spark.shuffle.ShuffleBatchDecoder;

/**
 * The Arrow shuffle's byte format, one Arrow batch of 8,192 rows (bigint, string of 4 to 24 bytes, 10%
 * nulls) split over 200 partitions per operation, against the path it replaces in the same run: each row
 * projected to an UnsafeRow and written with Spark's UnsafeRowSerializer (one stream per partition), and on
 * the read side the rows deserialized and converted back to Arrow with RowsToArrowBatches. Spark's
 * compression and disk I/O, the same for both, are left out.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ShuffleCodecBench {
  private static final int ROWS = 8192;
  private static final int PARTITIONS = 200;
  private static final StructType SCHEMA = new StructType().add("l", DataTypes.LongType)
      .add("s", DataTypes.StringType);

  private BufferAllocator allocator;
  private RowsToArrowBatches source;
  private ColumnarBatch batch;
  private int[] partitionIds;
  private PartitionedBatchEncoder encoder;
  private List<byte[]> records;
  private UnsafeProjection toUnsafe;
  private SerializerInstance rowSerializer;
  private ByteArrayOutputStream[] rowStreams;
  private List<byte[]> rowBlocks;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    allocator = new RootAllocator();
    Random r = new Random(42);
    List<InternalRow> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      Object l = r.nextInt(10) == 0 ? null : r.nextLong();
      Object s = r.nextInt(10) == 0 ? null : UTF8String.fromString("s".repeat(4 + r.nextInt(21)));
      rows.add(new GenericInternalRow(new Object[] {l, s}));
    }
    source = new RowsToArrowBatches(rows.iterator(), SCHEMA, "UTC", ROWS, allocator, Long.MAX_VALUE);
    batch = source.next();
    partitionIds = new int[ROWS];
    for (int i = 0; i < ROWS; i++) {
      partitionIds[i] = r.nextInt(PARTITIONS);
    }
    encoder = new PartitionedBatchEncoder(SCHEMA);
    records = new ArrayList<>();
    encoder.encode(batch, partitionIds, PARTITIONS, (p, rec) -> records.add(rec));
    toUnsafe = UnsafeProjection.create(SCHEMA);
    rowSerializer = new UnsafeRowSerializer(SCHEMA.size(), null).newInstance();
    rowStreams = new ByteArrayOutputStream[PARTITIONS];
    for (int p = 0; p < PARTITIONS; p++) {
      rowStreams[p] = new ByteArrayOutputStream();
    }
    rowsEncode();
    rowBlocks = new ArrayList<>();
    for (ByteArrayOutputStream s : rowStreams) {
      rowBlocks.add(s.toByteArray());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    source.close();
    allocator.close();
  }

  @Benchmark
  public long arrowEncode() {
    return encoder.encode(batch, partitionIds, PARTITIONS, (p, rec) -> { });
  }

  @Benchmark
  public long arrowDecode() {
    long sum = 0;
    try (ShuffleBatchDecoder d = new ShuffleBatchDecoder(records.iterator(), SCHEMA, "UTC", ROWS, allocator,
        Long.MAX_VALUE)) {
      while (d.hasNext()) {
        sum += d.next().numRows();
      }
    }
    return sum;
  }

  /** Anchor: ColumnarToRow's projection to UnsafeRow, then Spark's row serializer per partition. */
  @Benchmark
  public long rowsEncode() throws Exception {
    SerializationStream[] out = new SerializationStream[PARTITIONS];
    for (int p = 0; p < PARTITIONS; p++) {
      rowStreams[p].reset();
      out[p] = rowSerializer.serializeStream(rowStreams[p]);
    }
    Iterator<InternalRow> it = batch.rowIterator();
    int r = 0;
    while (it.hasNext()) {
      UnsafeRow row = toUnsafe.apply(it.next());
      out[partitionIds[r++]].writeValue(row, scala.reflect.ClassTag$.MODULE$.apply(UnsafeRow.class));
    }
    long bytes = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      out[p].close();
      bytes += rowStreams[p].size();
    }
    return bytes;
  }

  /** Anchor: Spark's row deserializer (one reused UnsafeRow per stream, read lazily), then rows to Arrow. */
  @Benchmark
  public long rowsDecode() {
    Iterator<InternalRow> rows = new Iterator<>() {
      private int block;
      private scala.collection.Iterator<scala.Tuple2<Object, Object>> current;

      @Override
      public boolean hasNext() {
        while ((current == null || !current.hasNext()) && block < rowBlocks.size()) {
          DeserializationStream in = rowSerializer.deserializeStream(new ByteArrayInputStream(rowBlocks.get(block++)));
          current = in.asKeyValueIterator();
        }
        return current != null && current.hasNext();
      }

      @Override
      public InternalRow next() {
        hasNext();
        return (InternalRow) current.next()._2();
      }
    };
    long sum = 0;
    try (RowsToArrowBatches back = new RowsToArrowBatches(rows, SCHEMA, "UTC", ROWS, allocator, Long.MAX_VALUE)) {
      while (back.hasNext()) {
        sum += back.next().numRows();
      }
    }
    return sum;
  }
}
