package io.rowmatch.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.spark.arrow.RandomSparkRows;
import io.rowmatch.spark.arrow.RowReadArrowColumnVector;
import io.rowmatch.spark.arrow.RowsToArrowBatches;

/**
 * Differential: rows split by the encoder and put back together by the decoder must be, partition by
 * partition, exactly the source rows of that partition in order (read through Spark's ArrowColumnVector
 * getters on both sides), for every flat type, many partition counts, sizes and batch sizes. Each batch's
 * size as UnsafeRows (the statistics AQE reads) must equal what Spark's own UnsafeProjection gives.
 */
class ShuffleRoundTripTest extends AllocatorTest {
  private static final String TZ = "America/Los_Angeles";
  private static final int[] SIZES = {0, 1, 63, 64, 65, 1000};
  private static final int[] PARTITIONS = {1, 2, 17, 300};
  private static final int[] DECODE_BATCH_SIZES = {1, 7, 64, 1 << 20};


  /** What the encoder emitted and what each partition must decode to. */
  private static final class Shuffled {
    final Map<Integer, List<byte[]>> records = new HashMap<>();
    final Map<Integer, List<List<Object>>> expected = new HashMap<>();
    long bytes;
  }

  /** Encodes the rows (as source batches of sourceBatchSize rows) with random partition ids, some partitions empty. */
  private Shuffled encode(StructType schema, List<InternalRow> rows, int sourceBatchSize, int numPartitions,
      Random random) {
    Shuffled out = new Shuffled();
    int[] used = new int[Math.max(1, numPartitions / 2 + random.nextInt(numPartitions / 2 + 1))];
    for (int i = 0; i < used.length; i++) {
      used[i] = random.nextInt(numPartitions);
    }
    PartitionedBatchEncoder encoder = new PartitionedBatchEncoder(schema);
    try (RowsToArrowBatches source = new RowsToArrowBatches(rows.iterator(), schema, TZ, sourceBatchSize,
        allocator, Long.MAX_VALUE)) {
      while (source.hasNext()) {
        ColumnarBatch batch = source.next();
        int[] ids = new int[batch.numRows() + random.nextInt(3)]; // may be longer than the batch
        for (int r = 0; r < ids.length; r++) {
          ids[r] = used[random.nextInt(used.length)];
        }
        for (int r = 0; r < batch.numRows(); r++) {
          out.expected.computeIfAbsent(ids[r], k -> new ArrayList<>()).add(ShuffleTestSupport.row(batch, r, schema));
        }
        long[] sum = {0};
        Map<Integer, Integer> seen = new HashMap<>();
        long bytes = encoder.encode(batch, ids, numPartitions, (p, record) -> {
          assertEquals(null, seen.put(p, 1), "two records for partition " + p + " from one batch");
          out.records.computeIfAbsent(p, k -> new ArrayList<>()).add(record);
          sum[0] += record.length;
        });
        assertEquals(sum[0], bytes, "bytes returned by encode");
        assertEquals(unsafeRowBytes(schema, batch), encoder.unsafeRowBytes(),
            "the batch's size as Spark's UnsafeRows (the exchange's data size)");
        out.bytes += bytes;
      }
    }
    return out;
  }

  /** What Spark's row shuffle would count as the batch's data size: each row's UnsafeRow size. */
  private static long unsafeRowBytes(StructType schema, ColumnarBatch batch) {
    UnsafeProjection toUnsafe = UnsafeProjection.create(schema);
    long bytes = 0;
    for (int r = 0; r < batch.numRows(); r++) {
      bytes += toUnsafe.apply(batch.getRow(r)).getSizeInBytes();
    }
    return bytes;
  }

  /** Decodes one partition's records and checks rows, order and the batch sizes greedy whole-record filling gives. */
  private void assertDecodes(StructType schema, List<byte[]> records, List<List<Object>> expected, int batchSize) {
    List<Integer> expectedSizes = new ArrayList<>();
    int current = 0;
    for (byte[] record : records) {
      int n = ShuffleFormat.rows(record, ShuffleColumns.kinds(schema), ShuffleColumns.widths(schema));
      if (current > 0 && current + n > batchSize) {
        expectedSizes.add(current);
        current = 0;
      }
      current += n;
    }
    if (current > 0) {
      expectedSizes.add(current);
    }
    List<List<Object>> actual = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    try (ShuffleBatchDecoder decoder = new ShuffleBatchDecoder(records.iterator(), schema, TZ, batchSize, allocator,
        Long.MAX_VALUE)) {
      while (decoder.hasNext()) {
        ColumnarBatch batch = decoder.next();
        sizes.add(batch.numRows());
        for (int c = 0; c < batch.numCols(); c++) {
          assertInstanceOf(RowReadArrowColumnVector.class, batch.column(c));
          ValueVector v = ((ArrowColumnVector) batch.column(c)).getValueVector();
          assertEquals(batch.numRows(), v.getValueCount());
          ValueVectorUtility.validate(v); // structure (validateFull would also judge the payload under nulls)
        }
        for (int r = 0; r < batch.numRows(); r++) {
          List<Object> row = ShuffleTestSupport.row(batch, r, schema);
          actual.add(row);
          // The fast-read vectors must agree with the plain checked reads.
          for (int c = 0; c < batch.numCols(); c++) {
            assertEquals(row.get(c), ShuffleTestSupport.cell(batch.column(c), r, schema.fields()[c].dataType()));
          }
        }
      }
      assertEquals(false, decoder.hasNext());
    }
    assertEquals(expectedSizes, sizes, "batch sizes for batchSize " + batchSize);
    assertEquals(expected.size(), actual.size(), "row count");
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), actual.get(i), "row " + i);
    }
  }

  private void roundTrip(StructType schema, List<InternalRow> rows, int sourceBatchSize, int numPartitions,
      Random random) {
    Shuffled s = encode(schema, rows, sourceBatchSize, numPartitions, random);
    int total = 0;
    for (Map.Entry<Integer, List<byte[]>> e : s.records.entrySet()) {
      assertTrue(e.getKey() >= 0 && e.getKey() < numPartitions);
      for (int batchSize : DECODE_BATCH_SIZES) {
        assertDecodes(schema, e.getValue(), s.expected.get(e.getKey()), batchSize);
      }
      total += s.expected.get(e.getKey()).size();
    }
    assertEquals(s.expected.keySet(), s.records.keySet(), "partitions with rows are exactly those with records");
    assertEquals(rows.size(), total);
  }

  @Test
  void everyFlatTypeEverySizeAndPartitionCount() {
    StructType schema = ShuffleTestSupport.flatEveryType();
    Random random = new Random(11);
    for (int n : SIZES) {
      for (int partitions : PARTITIONS) {
        List<InternalRow> rows = RandomSparkRows.rows(schema, n, 1000L * n + partitions, random.nextBoolean());
        roundTrip(schema, rows, Math.max(n, 1), partitions, random);
      }
    }
  }

  @Test
  void severalSourceBatchesFeedOnePartition() {
    StructType schema = ShuffleTestSupport.flatEveryType();
    Random random = new Random(12);
    for (int sourceBatch : new int[] {1, 13, 64, 65}) {
      for (int partitions : new int[] {1, 3, 300}) {
        roundTrip(schema, RandomSparkRows.rows(schema, 700, sourceBatch * 7L + partitions, true), sourceBatch,
            partitions, random);
      }
    }
  }

  /** More rows than the decoder's first allocation (4,096): every vector kind grows while a batch fills. */
  @Test
  void batchesLargerThanTheFirstAllocationGrowTheVectors() {
    StructType schema = ShuffleTestSupport.flatEveryType();
    Random random = new Random(15);
    List<InternalRow> rows = RandomSparkRows.rows(schema, 12_000, 15, true);
    for (int partitions : new int[] {1, 2}) {
      roundTrip(schema, rows, 1000, partitions, random);
    }
  }

  @Test
  void longStringsAndBinaries() {
    StructType schema = new StructType().add("id", DataTypes.LongType).add("s", DataTypes.StringType)
        .add("b", DataTypes.BinaryType);
    Random random = new Random(13);
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      String s = "é".repeat(random.nextInt(4) == 0 ? 9000 : random.nextInt(30)) + "🙂" + i;
      byte[] b = random.nextInt(5) == 0 ? null : s.getBytes(StandardCharsets.UTF_8);
      rows.add(new GenericInternalRow(new Object[] {(long) i, random.nextInt(7) == 0 ? null : UTF8String.fromString(s),
          b}));
    }
    for (int partitions : new int[] {1, 5, 64}) {
      roundTrip(schema, rows, 150, partitions, random);
    }
  }

  @Test
  void onlyNullTypeColumnsAndNoColumns() {
    Random random = new Random(14);
    StructType nulls = new StructType().add("n", DataTypes.NullType).add("m", DataTypes.NullType);
    roundTrip(nulls, RandomSparkRows.rows(nulls, 130, 3, false), 50, 4, random);
    StructType none = new StructType();
    List<InternalRow> empty = new ArrayList<>();
    for (int i = 0; i < 70; i++) {
      empty.add(new GenericInternalRow(new Object[0]));
    }
    roundTrip(none, empty, 70, 3, random);
  }

  @Test
  void everyRowToOnePartitionIsOneRecordWithTheWholeBatch() {
    StructType schema = ShuffleTestSupport.flatEveryType();
    List<InternalRow> rows = RandomSparkRows.rows(schema, 65, 5, true);
    List<byte[]> records = new ArrayList<>();
    List<List<Object>> expected = new ArrayList<>();
    PartitionedBatchEncoder encoder = new PartitionedBatchEncoder(schema);
    try (RowsToArrowBatches source = new RowsToArrowBatches(rows.iterator(), schema, TZ, 100, allocator,
        Long.MAX_VALUE)) {
      ColumnarBatch batch = source.next();
      for (int r = 0; r < batch.numRows(); r++) {
        expected.add(ShuffleTestSupport.row(batch, r, schema));
      }
      encoder.encode(batch, new int[65], 1, (p, record) -> {
        assertEquals(0, p);
        records.add(record);
      });
    }
    assertEquals(1, records.size());
    assertDecodes(schema, records, expected, 8192);
    assertDecodes(schema, records, expected, 10); // a record bigger than batchSize is a batch of its own
  }
}
