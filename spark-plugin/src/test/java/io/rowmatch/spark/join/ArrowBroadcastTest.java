package io.rowmatch.spark.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.spark.arrow.RandomSparkRows;
import io.rowmatch.spark.arrow.RowsToArrowBatches;
import io.rowmatch.spark.shuffle.PartitionedBatchEncoder;
import io.rowmatch.spark.shuffle.ShuffleTestSupport;

/**
 * A broadcast's records, read back on an executor, are exactly the shuffle records the encoder makes of each
 * batch, in batch order and partition order, whatever the codec, however many (tiny or chunk-sized) batches a
 * part holds; many small records share one chunk; a damaged chunk is an error naming it.
 */
class ArrowBroadcastTest extends AllocatorTest {
  private static final String TZ = "UTC";
  private static final String[] CODECS = {null, "lz4", "zstd", "snappy"};

  /** Encodes rows cut into batches of the given sizes; returns the part and, in expected, each batch's record. */
  private ArrowBroadcast.Part encode(StructType schema, List<InternalRow> rows, int[] batchSizes, String codec,
      List<byte[]> expected) {
    PartitionedBatchEncoder reference = new PartitionedBatchEncoder(schema);
    List<ColumnarBatch> batches = new ArrayList<>();
    List<RowsToArrowBatches> sources = new ArrayList<>();
    try {
      int at = 0;
      for (int size : batchSizes) {
        RowsToArrowBatches source = new RowsToArrowBatches(rows.subList(at, at + size).iterator(), schema, TZ,
            Math.max(1, size), allocator, Long.MAX_VALUE);
        sources.add(source);
        at += size;
        ColumnarBatch batch = size == 0 ? new ColumnarBatch(new org.apache.spark.sql.vectorized.ColumnVector[0], 0)
            : source.next();
        batches.add(batch);
        if (size > 0) {
          reference.encode(batch, new int[size], 1, (p, record) -> expected.add(record));
        }
      }
      return ArrowBroadcast.encode(batches.iterator(), schema, codec);
    } finally {
      sources.forEach(RowsToArrowBatches::close);
    }
  }

  private static List<byte[]> read(ArrowBroadcast broadcast) {
    List<byte[]> out = new ArrayList<>();
    Iterator<byte[]> it = broadcast.records();
    while (it.hasNext()) {
      out.add(it.next());
    }
    assertFalse(it.hasNext());
    return out;
  }

  private static void assertRecords(List<byte[]> expected, List<byte[]> actual) {
    assertEquals(expected.size(), actual.size(), "records");
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), actual.get(i), "record " + i);
    }
  }

  private static ArrowBroadcast serializedAndBack(ArrowBroadcast b) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(b);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (ArrowBroadcast) in.readObject();
    }
  }

  @Test
  void recordsComeBackInOrderForEveryCodecAndBatchSize() throws Exception {
    StructType flat = ShuffleTestSupport.flatEveryType();
    // Sizes 0/1/63/64/65 and a run of tiny batches (a selective filter's output), in two parts.
    int[][] parts = {{0, 1, 63, 64, 65, 0, 300}, {2, 1, 3, 1, 1, 2, 1, 1, 1, 2, 3, 1, 1, 1, 1, 2, 1}};
    for (String codec : CODECS) {
      List<byte[]> expected = new ArrayList<>();
      ArrowBroadcast.Part[] encoded = new ArrowBroadcast.Part[parts.length];
      long rows = 0;
      for (int p = 0; p < parts.length; p++) {
        int n = Arrays.stream(parts[p]).sum();
        rows += n;
        encoded[p] = encode(flat, RandomSparkRows.rows(flat, n, 31L * p + 7, p == 0), parts[p], codec, expected);
        assertEquals(n, encoded[p].rows);
        assertEquals(1, encoded[p].chunks.size(), "small records share one chunk (" + codec + ")");
      }
      ArrowBroadcast broadcast = ArrowBroadcast.of(encoded, codec);
      assertEquals(rows, broadcast.rows());
      assertEquals(encoded[0].bytes + encoded[1].bytes, broadcast.bytes());
      assertRecords(expected, read(broadcast));
      assertRecords(expected, read(serializedAndBack(broadcast)));
      assertRecords(expected, read(broadcast)); // the value is read again by each executor's build
    }
  }

  /** Records past the chunk size start new chunks; a record larger than a chunk is a chunk of its own. */
  @Test
  void largeRecordsSpanSeveralChunks() {
    StructType schema = new StructType().add("id", DataTypes.LongType).add("s", DataTypes.StringType);
    Random random = new Random(5);
    List<InternalRow> rows = new ArrayList<>();
    int[] sizes = {2000, 1, 2500, 40, 2000, 3};
    int total = Arrays.stream(sizes).sum();
    for (int i = 0; i < total; i++) {
      String s = random.nextInt(50) == 0 ? null : "é".repeat(random.nextInt(1600)) + "🙂" + i;
      rows.add(new GenericInternalRow(new Object[] {(long) i, s == null ? null : UTF8String.fromString(s)}));
    }
    for (String codec : new String[] {null, "lz4"}) {
      List<byte[]> expected = new ArrayList<>();
      ArrowBroadcast.Part part = encode(schema, rows, sizes, codec, expected);
      long raw = expected.stream().mapToLong(r -> r.length + 4L).sum();
      assertTrue(raw > 2L * ArrowBroadcast.CHUNK_BYTES, "the test's records fill several chunks: " + raw);
      assertTrue(part.chunks.size() >= 2 && part.chunks.size() < expected.size(),
          part.chunks.size() + " chunks for " + expected.size() + " records");
      assertEquals(expected.size(), part.chunkRecords.stream().mapToInt(Integer::intValue).sum());
      assertRecords(expected, read(ArrowBroadcast.of(new ArrowBroadcast.Part[] {part}, codec)));
    }
  }

  @Test
  void noBatchesIsNoRecords() {
    for (String codec : CODECS) {
      ArrowBroadcast.Part part = ArrowBroadcast.encode(List.<ColumnarBatch>of().iterator(),
          new StructType().add("a", DataTypes.IntegerType), codec);
      assertTrue(part.chunks.isEmpty());
      ArrowBroadcast broadcast = ArrowBroadcast.of(new ArrowBroadcast.Part[] {part, part}, codec);
      assertEquals(0, broadcast.rows());
      assertTrue(read(broadcast).isEmpty());
    }
  }

  @Test
  void aDamagedChunkIsAnErrorNamingIt() {
    StructType schema = new StructType().add("a", DataTypes.IntegerType);
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(new GenericInternalRow(new Object[] {i}));
    }
    for (String codec : CODECS) {
      ArrowBroadcast.Part part = encode(schema, rows, new int[] {60, 40}, codec, new ArrayList<>());
      byte[] whole = part.chunks.get(0);
      part.chunks.set(0, Arrays.copyOf(whole, whole.length / 2));
      ArrowBroadcast broadcast = ArrowBroadcast.of(new ArrowBroadcast.Part[] {part}, codec);
      UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> read(broadcast), String.valueOf(codec));
      assertTrue(e.getMessage().contains("broadcast chunk 0 of 1"), e.getMessage());
    }
  }
}
