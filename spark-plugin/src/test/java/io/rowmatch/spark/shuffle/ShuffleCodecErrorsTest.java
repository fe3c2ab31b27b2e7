package io.rowmatch.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.spark.arrow.RandomSparkRows;
import io.rowmatch.spark.arrow.RowsToArrowBatches;
import io.rowmatch.spark.memory.TaskArrowMemory;

/** Bad input on either side: clear errors naming what is wrong, nothing read out of bounds, nothing leaked. */
class ShuffleCodecErrorsTest extends AllocatorTest {
  private static final String TZ = "UTC";
  private static final StructType SCHEMA = new StructType().add("i", DataTypes.IntegerType)
      .add("s", DataTypes.StringType).add("f", DataTypes.BooleanType).add("d", DataTypes.createDecimalType(20, 3))
      .add("n", DataTypes.NullType);
  private static final StructType STRINGS = new StructType().add("s", DataTypes.StringType, false);


  /** Records of the given rows, all in partition 0, source batches of sourceBatchSize rows. */
  private List<byte[]> records(StructType schema, int rows, int sourceBatchSize, long seed) {
    return records(schema, RandomSparkRows.rows(schema, rows, seed, true), sourceBatchSize);
  }

  private List<byte[]> records(StructType schema, List<InternalRow> rows, int sourceBatchSize) {
    List<byte[]> out = new ArrayList<>();
    PartitionedBatchEncoder encoder = new PartitionedBatchEncoder(schema);
    try (RowsToArrowBatches source = new RowsToArrowBatches(rows.iterator(), schema, TZ, sourceBatchSize, allocator,
        Long.MAX_VALUE)) {
      while (source.hasNext()) {
        ColumnarBatch b = source.next();
        encoder.encode(b, new int[b.numRows()], 1, (p, r) -> out.add(r));
      }
    }
    return out;
  }

  private int decodeAll(StructType schema, Iterator<byte[]> records, int batchSize) {
    return decodeAll(schema, records, batchSize, true);
  }

  /**
   * Decodes everything and returns the rows decoded. Every vector's structure is validated; values are read
   * too unless the bytes were corrupted at random (a corrupt decimal payload is not the decoder's to catch:
   * Spark checksums the shuffle stream).
   */
  private int decodeAll(StructType schema, Iterator<byte[]> records, int batchSize, boolean readValues) {
    int rows = 0;
    try (ShuffleBatchDecoder d = new ShuffleBatchDecoder(records, schema, TZ, batchSize, allocator, Long.MAX_VALUE)) {
      while (d.hasNext()) {
        ColumnarBatch b = d.next();
        for (int c = 0; c < b.numCols(); c++) {
          ValueVectorUtility.validate(((ArrowColumnVector) b.column(c)).getValueVector());
        }
        for (int r = 0; readValues && r < b.numRows(); r++) {
          ShuffleTestSupport.row(b, r, schema); // every value readable
        }
        rows += b.numRows();
      }
    }
    return rows;
  }

  private String malformed(StructType schema, byte[] record) {
    // A good record first, so the bad one is appended after existing rows, not into fresh vectors.
    List<byte[]> list = new ArrayList<>(records(schema, 3, 3, 99));
    list.add(record);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> decodeAll(schema, list.iterator(), 1 << 20));
    assertTrue(e.getMessage().startsWith("malformed Arrow shuffle record: "), e.getMessage());
    return e.getMessage();
  }

  @Test
  void everyTruncationAndAnExtraByteAreMalformed() {
    byte[] record = records(SCHEMA, 21, 21, 1).get(0);
    for (int len = 0; len < record.length; len++) {
      malformed(SCHEMA, Arrays.copyOf(record, len));
    }
    assertTrue(malformed(SCHEMA, Arrays.copyOf(record, record.length + 1)).contains("but it holds"));
    assertEquals(24, decodeAll(SCHEMA, List.of(records(SCHEMA, 3, 3, 99).get(0), record).iterator(), 4));
  }

  @Test
  void headerErrorsSayWhatIsWrong() {
    byte[] record = records(SCHEMA, 10, 10, 2).get(0);
    byte[] version = record.clone();
    version[0] = 7;
    assertTrue(malformed(SCHEMA, version).contains("unknown format version 7"));
    byte[] columns = record.clone();
    Platform.putInt(columns, Platform.BYTE_ARRAY_OFFSET + 1, 4);
    assertTrue(malformed(SCHEMA, columns).contains("it holds 4 columns, the schema has 5"));
    for (int rows : new int[] {0, -1, Integer.MIN_VALUE}) {
      byte[] bad = record.clone();
      Platform.putInt(bad, Platform.BYTE_ARRAY_OFFSET + 5, rows);
      assertTrue(malformed(SCHEMA, bad).contains("bad row count " + rows), rows + "");
    }
    for (int rows : new int[] {11, 1000, Integer.MAX_VALUE}) {
      byte[] bad = record.clone();
      Platform.putInt(bad, Platform.BYTE_ARRAY_OFFSET + 5, rows);
      malformed(SCHEMA, bad);
    }
    byte[] flag = record.clone();
    flag[9] = 2;
    assertTrue(malformed(SCHEMA, flag).contains("column i has null flag 2"));
    assertTrue(malformed(SCHEMA, null).contains("no bytes"));
  }

  @Test
  void badEndOffsetsAreMalformed() {
    // Non-null strings: header, flag 0, rows end offsets, then the bytes.
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      rows.add(new GenericInternalRow(new Object[] {UTF8String.fromString("é".repeat(i + 1))}));
    }
    byte[] record = records(STRINGS, rows, 6).get(0);
    long ends = Platform.BYTE_ARRAY_OFFSET + 10;
    assertEquals(0, record[9]);
    byte[] past = record.clone();
    Platform.putInt(past, ends + 4 * 5, Platform.getInt(record, ends + 4 * 5) + 1);
    assertTrue(malformed(STRINGS, past).contains("column s: end offset"));
    byte[] huge = record.clone();
    Platform.putInt(huge, ends, Integer.MAX_VALUE);
    assertTrue(malformed(STRINGS, huge).contains("of row 0"));
    byte[] negative = record.clone();
    Platform.putInt(negative, ends + 8, -5);
    assertTrue(malformed(STRINGS, negative).contains("end offset -5 of row 2"));
    byte[] decreasing = record.clone();
    Platform.putInt(decreasing, ends + 12, Platform.getInt(record, ends + 8) - 1);
    assertTrue(malformed(STRINGS, decreasing).contains("of row 3 is below the previous"));
    assertEquals(6, decodeAll(STRINGS, List.of(record).iterator(), 4));
  }

  /** Random corruption: decoding succeeds or fails with a clear error, never anything else. */
  @Test
  void randomlyCorruptedRecordsNeverReadOutOfBounds() {
    Random random = new Random(5);
    StructType schema = ShuffleTestSupport.flatEveryType();
    List<byte[]> good = records(schema, 200, 40, 6);
    int failures = 0;
    for (int trial = 0; trial < 1500; trial++) {
      List<byte[]> list = new ArrayList<>();
      for (byte[] r : good) {
        list.add(r.clone());
      }
      byte[] victim = list.get(random.nextInt(list.size()));
      for (int k = 1 + random.nextInt(4); k > 0; k--) {
        int at = random.nextInt(Math.min(victim.length, random.nextBoolean() ? 64 : victim.length));
        victim[at] = (byte) random.nextInt();
      }
      if (random.nextInt(4) == 0) {
        list.set(list.indexOf(victim), Arrays.copyOf(victim, random.nextInt(victim.length + 3)));
      }
      try {
        decodeAll(schema, list.iterator(), 1 + random.nextInt(300), false);
      } catch (IllegalArgumentException e) {
        assertTrue(e.getMessage().startsWith("malformed Arrow shuffle record: "), e.getMessage());
        failures++;
      }
    }
    assertTrue(failures > 300, "corruptions detected: " + failures);
  }

  @Test
  void aMemoryLimitTooSmallNamesTheSettingAndLeavesNothingAllocated() {
    StructType schema = new StructType().add("a", DataTypes.LongType).add("s", DataTypes.StringType);
    List<byte[]> records = records(schema, 20_000, 5000, 7);
    try (BufferAllocator limited = allocator.newChildAllocator("task", 0, 64 << 10)) {
      ShuffleBatchDecoder d = new ShuffleBatchDecoder(records.iterator(), schema, TZ, 8192, limited, 64 << 10);
      RuntimeException e = assertThrows(TaskArrowMemory.RowmatchMemoryException.class, () -> {
        while (d.hasNext()) {
          d.next();
        }
      });
      assertTrue(e.getMessage().contains("spark.rowmatch.memory.limit"), e.getMessage());
      d.close();
      assertEquals(0, limited.getAllocatedMemory());
    }
  }

  @Test
  void closedEarlyAndTwiceReleasesEverything() {
    List<byte[]> records = records(SCHEMA, 30, 10, 8);
    ShuffleBatchDecoder d = new ShuffleBatchDecoder(records.iterator(), SCHEMA, TZ, 10, allocator, Long.MAX_VALUE);
    assertTrue(d.hasNext());
    assertEquals(10, d.next().numRows());
    assertTrue(allocator.getAllocatedMemory() > 0);
    d.close();
    d.close();
    assertEquals(0, allocator.getAllocatedMemory());
    assertFalse(d.hasNext());
    assertThrows(NoSuchElementException.class, d::next);
    // Exhausting closes by itself.
    ShuffleBatchDecoder all = new ShuffleBatchDecoder(records.iterator(), SCHEMA, TZ, 10, allocator, Long.MAX_VALUE);
    int batches = 0;
    while (all.hasNext()) {
      all.next();
      batches++;
    }
    assertEquals(3, batches);
    assertEquals(0, allocator.getAllocatedMemory());
    // Closed before anything was read.
    new ShuffleBatchDecoder(records.iterator(), SCHEMA, TZ, 10, allocator, Long.MAX_VALUE).close();
    assertEquals(false, new ShuffleBatchDecoder(new ArrayList<byte[]>().iterator(), SCHEMA, TZ, 10, allocator,
        Long.MAX_VALUE).hasNext());
  }

  @Test
  void badPartitionIdsAndMismatchedBatchesNameTheProblem() {
    StructType schema = new StructType().add("a", DataTypes.LongType);
    try (BigIntVector v = new BigIntVector("a", allocator); IntVector wrong = new IntVector("a", allocator)) {
      v.allocateNew(4);
      for (int i = 0; i < 4; i++) {
        v.set(i, i);
      }
      v.setValueCount(4);
      ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(v)}, 4);
      PartitionedBatchEncoder encoder = new PartitionedBatchEncoder(schema);
      List<byte[]> sunk = new ArrayList<>();
      PartitionedBatchEncoder.RecordSink sink = (p, r) -> sunk.add(r);
      assertEquals("row 2 has partition id 5, outside [0, 5)", assertThrows(IllegalArgumentException.class,
          () -> encoder.encode(batch, new int[] {0, 1, 5, 0}, 5, sink)).getMessage());
      assertEquals("row 3 has partition id -1, outside [0, 5)", assertThrows(IllegalArgumentException.class,
          () -> encoder.encode(batch, new int[] {0, 1, 4, -1}, 5, sink)).getMessage());
      assertThrows(IllegalArgumentException.class, () -> encoder.encode(batch, new int[] {0, 0, 0}, 1, sink));
      assertThrows(IllegalArgumentException.class, () -> encoder.encode(batch, new int[4], 0, sink));
      assertEquals(0, sunk.size());
      wrong.allocateNew(4);
      wrong.setValueCount(4);
      ColumnarBatch ints = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(wrong)}, 4);
      assertTrue(assertThrows(IllegalArgumentException.class, () -> encoder.encode(ints, new int[4], 1, sink))
          .getMessage().startsWith("column a is a IntVector"));
      // The encoder is reusable after an error.
      assertTrue(encoder.encode(batch, new int[] {1, 1, 0, 1}, 2, sink) > 0);
      assertEquals(2, sunk.size());
    }
  }

  @Test
  void sourceStringOffsetsPastTheDataAreReportedWithColumnAndRow() {
    StructType schema = new StructType().add("s", DataTypes.StringType);
    try (VarCharVector v = new VarCharVector("s", allocator)) {
      v.allocateNew(3);
      for (int i = 0; i < 3; i++) {
        v.setSafe(i, ("v" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      v.setValueCount(3);
      v.getOffsetBuffer().setInt(8, (int) v.getDataBuffer().capacity() + 1); // end of row 1, start of row 2
      ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(v)}, 3);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new PartitionedBatchEncoder(schema).encode(batch, new int[3], 1, (p, r) -> { }));
      assertTrue(e.getMessage().contains("column s") && e.getMessage().contains("row 1"), e.getMessage());
    }
  }

  @Test
  void onlyTheBatchRowsAreEncodedWhenTheVectorsHoldMore() {
    StructType schema = ShuffleTestSupport.flatEveryType();
    List<byte[]> records = new ArrayList<>();
    List<List<Object>> expected = new ArrayList<>();
    try (RowsToArrowBatches source = new RowsToArrowBatches(RandomSparkRows.rows(schema, 65, 9, true).iterator(),
        schema, TZ, 65, allocator, Long.MAX_VALUE)) {
      ColumnarBatch batch = source.next();
      batch.setNumRows(40);
      for (int r = 0; r < 40; r++) {
        expected.add(ShuffleTestSupport.row(batch, r, schema));
      }
      new PartitionedBatchEncoder(schema).encode(batch, new int[65], 1, (p, r) -> records.add(r));
    }
    List<List<Object>> actual = new ArrayList<>();
    try (ShuffleBatchDecoder d = new ShuffleBatchDecoder(records.iterator(), schema, TZ, 100, allocator,
        Long.MAX_VALUE)) {
      while (d.hasNext()) {
        ColumnarBatch b = d.next();
        for (int r = 0; r < b.numRows(); r++) {
          actual.add(ShuffleTestSupport.row(b, r, schema));
        }
      }
    }
    assertEquals(expected, actual);
  }
}
