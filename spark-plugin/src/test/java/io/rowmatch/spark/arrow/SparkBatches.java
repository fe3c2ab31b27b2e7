package io.rowmatch.spark.arrow;

import java.util.Iterator;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.RowToColumnConverter;
import org.apache.spark.sql.execution.datasources.parquet.ParquetDictionary;
import org.apache.spark.sql.execution.vectorized.Dictionary;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Spark column vectors as its vectorized readers hand them over, for the tests of what reads them: one batch of
 * reused vectors refilled batch after batch (values left under null slots by an earlier batch stay in play), filled
 * from rows as RowToColumnarExec does, or dictionary-encoded with a Parquet chunk's dictionary wrapped anew per
 * batch as Spark's Parquet reader wraps it.
 */
final class SparkBatches {
  private SparkBatches() {}

  /** On-heap or off-heap vectors for the schema. */
  static WritableColumnVector[] allocate(StructType schema, int capacity, boolean offHeap) {
    return offHeap ? OffHeapColumnVector.allocateColumns(capacity, schema)
        : OnHeapColumnVector.allocateColumns(capacity, schema);
  }

  /**
   * {@code count} batches, all the same {@code batch}: batch k's vectors are filled by {@code fill.applyAsInt(k)},
   * which returns its row count. With {@code closeAtEnd} the batch (and its vectors) is closed once the iterator
   * is exhausted, as a reader closes its vectors; otherwise the caller closes it.
   */
  static Iterator<ColumnarBatch> reused(ColumnarBatch batch, int count, IntUnaryOperator fill, boolean closeAtEnd) {
    return new Iterator<>() {
      private int next;
      private boolean closed;

      @Override
      public boolean hasNext() {
        if (next < count) {
          return true;
        }
        if (closeAtEnd && !closed) {
          closed = true;
          batch.close();
        }
        return false;
      }

      @Override
      public ColumnarBatch next() {
        batch.setNumRows(fill.applyAsInt(next++));
        return batch;
      }
    };
  }

  /** The rows in reused vectors, {@code batchSize} at a time; the batch is closed at the end. */
  static Iterator<ColumnarBatch> ofRows(StructType schema, List<InternalRow> rows, int batchSize, boolean offHeap) {
    WritableColumnVector[] vectors = allocate(schema, batchSize, offHeap);
    RowToColumnConverter converter = new RowToColumnConverter(schema);
    int batches = (rows.size() + batchSize - 1) / batchSize;
    return reused(new ColumnarBatch(vectors), batches, k -> fill(vectors, converter,
        rows.subList(k * batchSize, Math.min(rows.size(), (k + 1) * batchSize))), true);
  }

  /** Resets the vectors and converts the rows into them; the row count. */
  static int fill(WritableColumnVector[] vectors, RowToColumnConverter converter, List<InternalRow> rows) {
    for (WritableColumnVector v : vectors) {
      v.reset();
    }
    for (InternalRow r : rows) {
      converter.convert(r, vectors);
    }
    return rows.size();
  }

  /** An id no dictionary here has: under a null slot it must never be decoded. */
  static final int ABSENT_ID = 1_000_000;

  /**
   * Resets {@code v} and refills it dictionary-encoded: n ids {@code id.applyAsInt(i)}, and a null (over
   * {@link #ABSENT_ID}) where {@code isNull} holds.
   */
  static void dictionaryEncoded(WritableColumnVector v, Dictionary dictionary, int n, IntUnaryOperator id,
      IntPredicate isNull) {
    v.reset();
    v.setDictionary(dictionary);
    WritableColumnVector ids = v.reserveDictionaryIds(n);
    for (int i = 0; i < n; i++) {
      boolean nullAt = isNull.test(i);
      ids.putInt(i, nullAt ? ABSENT_ID : id.applyAsInt(i));
      if (nullAt) {
        v.putNull(i);
      }
    }
  }

  /** A Parquet chunk's dictionary behind a new wrapper, as Spark's Parquet reader gives each batch. */
  static Dictionary wrapped(org.apache.parquet.column.Dictionary chunk) {
    return new ParquetDictionary(chunk, false);
  }

  /**
   * A Parquet column chunk's dictionary of ids 0..maxId, decoding through the functions given and counting its
   * decodes.
   */
  static final class ParquetChunk extends org.apache.parquet.column.Dictionary {
    private final int maxId;
    private IntUnaryOperator ints;
    private IntToLongFunction longs;
    private IntFunction<Float> floats;
    private IntToDoubleFunction doubles;
    private IntFunction<String> strings;
    /** How many values were decoded. */
    int decodes;

    ParquetChunk(int maxId) {
      super(org.apache.parquet.column.Encoding.PLAIN_DICTIONARY);
      this.maxId = maxId;
    }

    ParquetChunk ints(IntUnaryOperator f) {
      ints = f;
      return this;
    }

    ParquetChunk longs(IntToLongFunction f) {
      longs = f;
      return this;
    }

    ParquetChunk floats(IntFunction<Float> f) {
      floats = f;
      return this;
    }

    ParquetChunk doubles(IntToDoubleFunction f) {
      doubles = f;
      return this;
    }

    ParquetChunk strings(IntFunction<String> f) {
      strings = f;
      return this;
    }

    @Override
    public int getMaxId() {
      return maxId;
    }

    /** Counts a decode through {@code f}; without one, Parquet's own answer for another type: unsupported. */
    private void decode(Object f, String kind) {
      if (f == null) {
        throw new UnsupportedOperationException("this chunk has no " + kind + " values");
      }
      decodes++;
    }

    @Override
    public int decodeToInt(int id) {
      decode(ints, "int");
      return ints.applyAsInt(id);
    }

    @Override
    public long decodeToLong(int id) {
      decode(longs, "long");
      return longs.applyAsLong(id);
    }

    @Override
    public float decodeToFloat(int id) {
      decode(floats, "float");
      return floats.apply(id);
    }

    @Override
    public double decodeToDouble(int id) {
      decode(doubles, "double");
      return doubles.applyAsDouble(id);
    }

    @Override
    public org.apache.parquet.io.api.Binary decodeToBinary(int id) {
      decode(strings, "string");
      return org.apache.parquet.io.api.Binary.fromString(strings.apply(id));
    }
  }
}
