package io.rowmatch.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.vectorized.Dictionary;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.ArrayEquals;
import io.rowmatch.core.testing.AllocatorTest;

/**
 * Differential: Spark column vectors (on-heap, off-heap, dictionary-encoded) copied into Arrow must equal
 * what Spark's own ArrowWriter makes of the same rows. The Spark vectors are reused batch after batch, as the
 * vectorized readers do, so values left under null slots by an earlier batch are in play.
 */
class ColumnarToArrowBatchesTest extends AllocatorTest {
  private int assertConverted(StructType schema, List<InternalRow> rows, int batchSize, Iterator<ColumnarBatch> in) {
    try (ColumnarToArrowBatches ours = new ColumnarToArrowBatches(in, schema, "UTC", allocator, Long.MAX_VALUE)) {
      return SparkWriterOracle.assertSameAsSparkWriter(allocator, schema, rows, batchSize, ours);
    }
  }

  @Test
  void onHeapAndOffHeapVectorsOfEveryTypeAtBatchBoundaries() {
    // RowToColumnConverter has no NullType converter; NullType columns are covered by the row tests.
    StructType schema = RandomSparkRows.everyType(false);
    for (boolean offHeap : new boolean[] {false, true}) {
      for (int n : new int[] {0, 1, 63, 64, 65, 300}) {
        List<InternalRow> rows = RandomSparkRows.rows(schema, n, 17L * n + (offHeap ? 1 : 0), false);
        int batches = assertConverted(schema, rows, 64, SparkBatches.ofRows(schema, rows, 64, offHeap));
        assertEquals((n + 63) / 64, batches, (offHeap ? "off" : "on") + "-heap batches for " + n + " rows");
      }
    }
  }

  @Test
  void stringLengthsLeftUnderNullsByAnEarlierBatchAreIgnored() {
    StructType schema = new StructType().add("s", DataTypes.StringType).add("b", DataTypes.BinaryType);
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 64; i++) { // batch 1: long values everywhere
      String s = "value number " + i + " é";
      rows.add(new GenericInternalRow(new Object[] {UTF8String.fromString(s), s.getBytes(StandardCharsets.UTF_8)}));
    }
    for (int i = 0; i < 64; i++) { // batch 2: mostly nulls over the same slots
      rows.add(new GenericInternalRow(i % 5 == 0 ? new Object[] {UTF8String.fromString(""), new byte[0]}
          : new Object[2]));
    }
    for (boolean offHeap : new boolean[] {false, true}) {
      assertEquals(2, assertConverted(schema, rows, 64, SparkBatches.ofRows(schema, rows, 64, offHeap)));
    }
  }

  @Test
  void stringsWrittenOutOfOrderAreCopiedValueByValue() {
    // Values appended in reverse row order: the child bytes are not in row order, so no single bulk copy.
    StructType schema = new StructType().add("s", DataTypes.StringType);
    int n = 65;
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(new GenericInternalRow(new Object[] {i % 7 == 3 ? null : UTF8String.fromString("v" + i + "é")}));
    }
    for (boolean offHeap : new boolean[] {false, true}) {
      WritableColumnVector v = offHeap ? new OffHeapColumnVector(n, DataTypes.StringType)
          : new OnHeapColumnVector(n, DataTypes.StringType);
      for (int i = n - 1; i >= 0; i--) {
        UTF8String s = rows.get(i).getUTF8String(0);
        if (s == null) {
          v.putNull(i);
        } else {
          v.putByteArray(i, s.getBytes());
        }
      }
      ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {v}, n);
      try {
        assertEquals(1, assertConverted(schema, rows, n, List.of(batch).iterator()));
      } finally {
        batch.close();
      }
    }
  }

  /** A Parquet-style dictionary: ids decode to values that depend on the dictionary's salt. */
  private static final class Words implements Dictionary {
    private final String[] words;
    private final int salt;

    Words(int salt) {
      this.salt = salt;
      // Empty, 1 to 8 bytes (one word), 9 to 64 (a few words), over 64 (one memory copy), multibyte.
      this.words = new String[] {"alpha" + salt, "", "日本" + salt, "z", "exactly8", "nine-byte",
          "a dictionary value of forty bytes, salt " + salt, "ü".repeat(40) + salt};
    }

    @Override
    public int decodeToInt(int id) {
      return id * 1000 - 7 + salt;
    }

    @Override
    public long decodeToLong(int id) {
      return id * -3_000_000_000L + salt;
    }

    @Override
    public float decodeToFloat(int id) {
      return id == 0 ? -0.0f : Float.NaN;
    }

    @Override
    public double decodeToDouble(int id) {
      return id == 0 ? -0.0 : id + salt;
    }

    @Override
    public byte[] decodeToBinary(int id) {
      return words[id % words.length].getBytes(StandardCharsets.UTF_8);
    }
  }

  @Test
  void dictionaryEncodedVectorsAreDecodedAndANewDictionaryIsNotConfusedWithTheLast() {
    // Decimals of at most 9 and of 10 to 18 digits are kept as unscaled ints and longs, dictionary-encoded too.
    StructType schema = new StructType().add("i", DataTypes.IntegerType).add("l", DataTypes.LongType)
        .add("d", DataTypes.DoubleType).add("s", DataTypes.StringType)
        .add("dec5", DataTypes.createDecimalType(5, 2)).add("dec12", DataTypes.createDecimalType(12, 2));
    int n = 70;
    List<InternalRow> rows = new ArrayList<>();
    WritableColumnVector[] vectors = OnHeapColumnVector.allocateColumns(n, schema);
    ColumnarBatch batch = new ColumnarBatch(vectors, n);
    // The same vectors and the same ids (every entry, not in order), refilled under a new dictionary, as a reader
    // entering a new column chunk does.
    Iterator<ColumnarBatch> twoDictionaries = SparkBatches.reused(batch, 2, salt -> {
      Words words = new Words(salt);
      for (WritableColumnVector v : vectors) {
        SparkBatches.dictionaryEncoded(v, words, n, i -> (i * 5) % 8, i -> i % 9 == 4);
      }
      return n;
    }, false);
    for (int salt = 0; salt < 2; salt++) {
      Words w = new Words(salt);
      for (int i = 0; i < n; i++) {
        int id = (i * 5) % 8;
        rows.add(new GenericInternalRow(i % 9 == 4 ? new Object[6] : new Object[] {w.decodeToInt(id),
            w.decodeToLong(id), w.decodeToDouble(id), UTF8String.fromBytes(w.decodeToBinary(id)),
            org.apache.spark.sql.types.Decimal.apply(w.decodeToInt(id), 5, 2),
            org.apache.spark.sql.types.Decimal.apply(w.decodeToLong(id), 12, 2)}));
      }
    }
    try {
      assertEquals(2, assertConverted(schema, rows, n, twoDictionaries));
    } finally {
      batch.close();
    }
  }

  @Test
  void parquetDictionaryWrappedAnewEachBatchIsDecodedOnceAndANewChunkIsNotConfusedWithTheLast() {
    // Spark's Parquet reader wraps its chunk's dictionary in a new ParquetDictionary per batch: batches 1 and 2
    // share chunk A's dictionary behind two wrappers, batch 3 starts chunk B with other values for the same
    // ids (longer ones too, so a stale entry would also have the wrong length).
    String[] wordsA = {"a", "", "ünïcødé", "twelve bytes"};
    String[] wordsB = {"b-first-value-of-chunk-b", "x", "", "日本語の値"};
    SparkBatches.ParquetChunk chunkA = new SparkBatches.ParquetChunk(3).strings(id -> wordsA[id]);
    SparkBatches.ParquetChunk chunkB = new SparkBatches.ParquetChunk(3).strings(id -> wordsB[id]);
    SparkBatches.ParquetChunk[] chunks = {chunkA, chunkA, chunkB};
    StructType schema = new StructType().add("s", DataTypes.StringType);
    int n = 65;
    List<InternalRow> rows = new ArrayList<>();
    for (SparkBatches.ParquetChunk chunk : chunks) {
      for (int i = 0; i < n; i++) {
        rows.add(new GenericInternalRow(i % 7 == 3 ? new Object[1]
            : new Object[] {UTF8String.fromBytes(chunk.decodeToBinary((i * 3) % 4).getBytes())}));
      }
    }
    chunkA.decodes = 0;
    chunkB.decodes = 0;
    WritableColumnVector[] vectors = OnHeapColumnVector.allocateColumns(n, schema);
    ColumnarBatch batch = new ColumnarBatch(vectors, n);
    Iterator<ColumnarBatch> threeBatches = SparkBatches.reused(batch, chunks.length, k -> {
      SparkBatches.dictionaryEncoded(vectors[0], SparkBatches.wrapped(chunks[k]), n, i -> (i * 3) % 4,
          i -> i % 7 == 3);
      return n;
    }, false);
    try {
      assertEquals(3, assertConverted(schema, rows, n, threeBatches));
      assertEquals(8, chunkA.decodes + chunkB.decodes, "each entry of each chunk decoded once, not once per batch");
    } finally {
      batch.close();
    }
  }

  /** A Parquet column chunk's dictionary of numbers: id i decodes to a value of the salt. */
  private static SparkBatches.ParquetChunk parquetNumbers(int salt) {
    // the extremes fit decimal(5, _) and (18, _)
    return new SparkBatches.ParquetChunk(7).ints(id -> id == 7 ? -99_999 + salt : id * 1000 - 7 + salt)
        .longs(id -> id == 7 ? -999_999_999_999_999_999L + salt : id * -3_000_000_000L + salt)
        .floats(id -> id == 0 ? -0.0f : id == 1 ? Float.intBitsToFloat(0x7fc00123) : (float) (id + salt))
        .doubles(id -> id == 0 ? -0.0 : id == 1 ? Double.longBitsToDouble(0x7ff8000000000abcL) : id * 0.5 + salt);
  }

  @Test
  void dictionaryEncodedNumbersOfEveryKindEqualTheirGettersAndAreDecodedOncePerChunk() {
    // Every fixed-width kind a reader keeps dictionary-encoded, on and off heap: batches 1 and 2 share chunk A's
    // dictionary behind two ParquetDictionary wrappers, batch 3 starts chunk B (same ids, other values). With
    // nulls, and without (the loop without a null check).
    StructType schema = new StructType().add("b", DataTypes.ByteType).add("sh", DataTypes.ShortType)
        .add("i", DataTypes.IntegerType).add("dt", DataTypes.DateType).add("l", DataTypes.LongType)
        .add("ts", DataTypes.TimestampType).add("f", DataTypes.FloatType).add("d", DataTypes.DoubleType)
        .add("dec5", DataTypes.createDecimalType(5, 2)).add("dec18", DataTypes.createDecimalType(18, 3));
    for (int variant = 0; variant < 4; variant++) {
      boolean offHeap = variant % 2 == 1;
      boolean withNulls = variant < 2;
      SparkBatches.ParquetChunk chunkA = parquetNumbers(0);
      SparkBatches.ParquetChunk chunkB = parquetNumbers(11);
      SparkBatches.ParquetChunk[] chunks = {chunkA, chunkA, chunkB};
      int n = 65;
      WritableColumnVector[] vectors = SparkBatches.allocate(schema, n, offHeap);
      ColumnarBatch batch = new ColumnarBatch(vectors, n);
      java.util.function.IntUnaryOperator fill = chunk -> {
        for (WritableColumnVector v : vectors) {
          // every entry, out of order
          SparkBatches.dictionaryEncoded(v, SparkBatches.wrapped(chunks[chunk]), n, i -> (i * 3 + chunk) % 8,
              i -> withNulls && i % 11 == 5);
        }
        return n;
      };
      // The oracle: Spark's own getters on the same vectors, row by row.
      List<InternalRow> rows = new ArrayList<>();
      for (int chunk = 0; chunk < chunks.length; chunk++) {
        fill.applyAsInt(chunk);
        for (int i = 0; i < n; i++) {
          rows.add(batch.getRow(i).copy());
        }
      }
      chunkA.decodes = 0;
      chunkB.decodes = 0;
      Iterator<ColumnarBatch> threeBatches = SparkBatches.reused(batch, chunks.length, fill, false);
      try {
        assertEquals(3, assertConverted(schema, rows, n, threeBatches));
        // 10 columns x 8 entries x 2 chunks: chunk A's second wrapper decodes nothing anew
        assertEquals(160, chunkA.decodes + chunkB.decodes, (offHeap ? "off" : "on") + "-heap, nulls " + withNulls
            + ": each entry decoded once per chunk");
      } finally {
        batch.close();
      }
    }
  }

  /**
   * A flat column copied on read: rows gathered straight from Spark's column (any order, repeats) equal the same
   * rows gathered from the whole column once it is copied, bit for bit, for every flat type, on and off heap; a
   * gather of fewer than 3/4 of the rows copies nothing into the reused vector; nested columns are copied at once;
   * a row outside the batch is refused with the column's name. A selection of the rows (a filter's kept rows),
   * gathered or read whole, equals the same rows of the whole column.
   */
  @Test
  void columnsCopiedOnReadGatherTheSameRowsAsTheWholeCopy() {
    ArrayEquals.Options exact = new ArrayEquals.Options(true, false);
    StructType schema = RandomSparkRows.everyType(false);
    java.util.Random rnd = new java.util.Random(23);
    int lazy = 0;
    for (boolean offHeap : new boolean[] {false, true}) {
      for (int n : new int[] {1, 63, 64, 65, 200}) {
        List<InternalRow> rows = RandomSparkRows.rows(schema, n, 31L * n + (offHeap ? 1 : 0), false);
        try (ColumnarToArrowBatches ours = new ColumnarToArrowBatches(SparkBatches.ofRows(schema, rows, 64, offHeap),
            schema, "UTC", allocator, Long.MAX_VALUE)) {
          while (ours.hasNext()) {
            ColumnarBatch batch = ours.next();
            int m = batch.numRows();
            for (int c = 0; c < schema.fields().length; c++) {
              if (!(batch.column(c) instanceof ConvertOnReadColumn u)) {
                assertTrue(schema.fields()[c].dataType() instanceof org.apache.spark.sql.types.ArrayType
                    || schema.fields()[c].dataType() instanceof org.apache.spark.sql.types.MapType
                    || schema.fields()[c].dataType() instanceof StructType, "flat column " + c + " copied at once");
                continue;
              }
              lazy++;
              int count = rnd.nextInt(2 * m + 1);
              int[] at = new int[count];
              for (int i = 0; i < count; i++) {
                at[i] = rnd.nextInt(m);
              }
              try (FieldVector fromSpark = u.gather(at, count, u.field(), allocator)) {
                // Fewer rows than 3/4 of the batch come from Spark's column; more from a whole copy.
                assertEquals((long) count * 4 >= 3L * m, u.isConverted(), count + " of " + m + " rows, column " + c);
                int[] outside = {0, m};
                assertThrows(IndexOutOfBoundsException.class, () -> u.gather(outside, 2, u.field(), allocator));
                FieldVector whole = (FieldVector) u.getValueVector();
                assertTrue(u.isConverted());
                try (FieldVector fromArrow = u.field().createVector(allocator)) {
                  io.rowmatch.core.arrow.ArrowCopy.gather(whole, at, count, fromArrow,
                      new io.rowmatch.core.arrow.ArrowCopy.Scratch());
                  assertEquals(count, fromSpark.getValueCount());
                  assertTrue(ArrayEquals.equals(fromArrow, fromSpark, exact), "column " + c + " ("
                      + schema.fields()[c].dataType().simpleString() + "), " + count + " rows of " + m + "\nwant "
                      + fromArrow + "\ngot  " + fromSpark);
                }
                assertSelectionReadsTheSameRows(batch, c, m, rnd, exact);
              }
            }
          }
        }
      }
    }
    assertTrue(lazy > 0, "no column was copied on read");
  }

  /** Kept rows of a fresh copy of column c (Spark's, not yet copied), gathered and read whole, against the whole. */
  private void assertSelectionReadsTheSameRows(ColumnarBatch batch, int c, int m, java.util.Random rnd,
      ArrayEquals.Options exact) {
    ConvertOnReadColumn base = (ConvertOnReadColumn) batch.column(c);
    FieldVector all = (FieldVector) base.getValueVector();
    int[] keptRows = java.util.stream.IntStream.range(0, m).filter(i -> rnd.nextInt(3) != 0).toArray();
    ConvertOnReadColumn kept = base.select(keptRows, keptRows.length, allocator);
    try {
      int n = keptRows.length;
      int[] at = new int[n / 3];
      for (int i = 0; i < at.length; i++) {
        at[i] = rnd.nextInt(n);
      }
      int[] source = new int[at.length];
      for (int i = 0; i < at.length; i++) {
        source[i] = keptRows[at[i]];
      }
      try (FieldVector got = kept.gather(at, at.length, kept.field(), allocator);
          FieldVector want = kept.field().createVector(allocator);
          FieldVector wantAll = kept.field().createVector(allocator)) {
        io.rowmatch.core.arrow.ArrowCopy.gather(all, source, source.length, want,
            new io.rowmatch.core.arrow.ArrowCopy.Scratch());
        assertTrue(ArrayEquals.equals(want, got, exact), "gather of kept rows, column " + c);
        io.rowmatch.core.arrow.ArrowCopy.gather(all, keptRows, n, wantAll,
            new io.rowmatch.core.arrow.ArrowCopy.Scratch());
        assertTrue(ArrayEquals.equals(wantAll, (FieldVector) kept.getValueVector(), exact), "kept rows, column " + c);
      }
    } finally {
      kept.close(); // releases the kept rows' vector (the allocator check finds a leak)
    }
  }

  @Test
  void arrowBatchesPassThroughUntouched() {
    StructType schema = new StructType().add("x", DataTypes.LongType);
    List<InternalRow> rows = RandomSparkRows.rows(schema, 10, 3, false);
    try (RowsToArrowBatches arrow = new RowsToArrowBatches(rows.iterator(), schema, "UTC", 16, allocator,
        Long.MAX_VALUE)) {
      ColumnarBatch b = arrow.next();
      ColumnVector first = b.column(0);
      try (ColumnarToArrowBatches ours = new ColumnarToArrowBatches(List.of(b).iterator(), schema, "UTC",
          allocator, Long.MAX_VALUE)) {
        ColumnarBatch out = ours.next();
        assertSame(b, out);
        assertSame(first, out.column(0));
        assertTrue(ColumnarToArrowBatches.isArrow(out));
      }
    }
  }
}
