package io.rowmatch.spark.shuffle;

import static io.rowmatch.spark.shuffle.ShuffleFormat.BASE;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;

import io.rowmatch.spark.arrow.ArrowSchemas;
import io.rowmatch.spark.arrow.ArrowSettings;
import io.rowmatch.spark.arrow.RowReadArrowColumnVector;
import io.rowmatch.spark.memory.TaskArrowMemory;

/**
 * Concatenates Arrow shuffle records ({@link ShuffleFormat}) of one schema back into Arrow batches of up to
 * batchSize rows. Records are appended whole: a batch takes records until the next one would pass
 * batchSize (a single larger record makes a batch of its own size). Each record's columns are appended
 * with bulk copies: fixed-width values and string bytes in one copy, bitmaps shifted to any bit position
 * a word at a time, var-width offsets rebased. Every length in a record is checked against the record
 * before anything is read from it, and the output vectors grow (doubling) before anything is written.
 *
 * <p>One set of vectors is reused for every batch: a batch is valid until the next hasNext()/next() (the
 * usual columnar contract, as arrow.RowsToArrowBatches). close() releases them; it runs by itself once
 * the records are exhausted, and may be called early or twice.
 */
public final class ShuffleBatchDecoder implements Iterator<ColumnarBatch>, AutoCloseable {
  /** The read side of RowmatchShuffleExchangeExec: one decoder per reduce partition, released with the task. */
  public static Iterator<ColumnarBatch> forTask(Iterator<byte[]> records, StructType schema, ArrowSettings settings,
      TaskContext task) {
    return TaskArrowMemory.open(task, settings.memoryLimit, allocator -> new ShuffleBatchDecoder(records, schema,
        settings.timeZone, settings.batchSize, allocator, settings.memoryLimit));
  }

  private static final String OPERATOR = "RowmatchShuffleExchange (reading shuffled Arrow batches)";
  /** Rows allocated for the first batch at most: small shuffles stay small, larger ones double from here. */
  private static final int FIRST_ALLOCATION_ROWS = 4096;
  private static final int FIRST_BYTES_PER_VALUE = 16;

  private final Iterator<byte[]> records;
  private final int[] kinds;
  private final int[] widths;
  private final String[] names;
  private final int batchSize;
  private final long memoryLimit;
  private final VectorSchemaRoot root;
  private final FieldVector[] vectors;
  /** The next record, read from the iterator to learn its row count, and that count. */
  private byte[] pending;
  private int pendingRows;
  private boolean allocated;
  private boolean closed;

  public ShuffleBatchDecoder(Iterator<byte[]> records, StructType schema, String timeZone, int batchSize,
      BufferAllocator allocator, long memoryLimit) {
    ShuffleFormat.requireLittleEndian();
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
    }
    this.records = records;
    this.kinds = ShuffleColumns.kinds(schema);
    this.widths = ShuffleColumns.widths(schema);
    this.names = schema.fieldNames();
    this.batchSize = batchSize;
    this.memoryLimit = memoryLimit;
    this.root = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema, timeZone), allocator); // allocates no buffer
    List<FieldVector> list = root.getFieldVectors();
    this.vectors = list.toArray(new FieldVector[0]);
  }

  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    if (pending == null) {
      fetch();
    }
    if (pending != null) {
      return true;
    }
    close();
    return false;
  }

  private void fetch() {
    if (records.hasNext()) {
      byte[] record = records.next();
      pendingRows = ShuffleFormat.rows(record, kinds, widths);
      pending = record;
    }
  }

  @Override
  public ColumnarBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    int rows = 0;
    try {
      do {
        byte[] record = pending;
        int count = pendingRows;
        pending = null;
        append(record, count, rows);
        rows += count;
        fetch();
      } while (pending != null && (long) rows + pendingRows <= batchSize);
      for (FieldVector v : vectors) {
        if (v instanceof BaseVariableWidthVector var) {
          var.setLastSet(rows - 1);
        }
        v.setValueCount(rows);
      }
    } catch (OutOfMemoryException e) {
      throw TaskArrowMemory.outOfMemory(OPERATOR, memoryLimit, e);
    }
    root.setRowCount(rows);
    // RowReadArrowColumnVector checks the buffers against the value count once: wrap the finished vectors anew.
    ColumnVector[] columns = new ColumnVector[vectors.length];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = new RowReadArrowColumnVector(vectors[c]);
    }
    return new ColumnarBatch(columns, rows);
  }

  /** Appends a record of {@code count} rows (header checked) after the batch's first {@code at} rows. */
  private void append(byte[] record, int count, int at) {
    int need = at + count;
    if (!allocated) {
      allocate(need);
    }
    long pos = ShuffleFormat.HEADER_BYTES;
    for (int c = 0; c < kinds.length; c++) {
      int kind = kinds[c];
      if (kind == ShuffleColumns.NULL) {
        continue;
      }
      FieldVector v = vectors[c];
      grow(v, need);
      require(record, pos, 1, c, "its null flag");
      byte flag = record[(int) pos];
      pos++;
      long bitmap = ShuffleFormat.bitmapBytes(count);
      if (flag == ShuffleFormat.HAS_NULLS) {
        require(record, pos, bitmap, c, "its validity bitmap");
        ShuffleBits.append(record, pos, count, v.getValidityBufferAddress(), at);
        pos += bitmap;
      } else if (flag == ShuffleFormat.NO_NULLS) {
        ShuffleBits.setOnes(v.getValidityBufferAddress(), at, count);
      } else {
        throw ShuffleFormat.malformed("column " + names[c] + " has null flag " + flag + " (0 or 1 expected)");
      }
      switch (kind) {
        case ShuffleColumns.BIT -> {
          require(record, pos, bitmap, c, "its boolean values");
          ShuffleBits.append(record, pos, count, v.getDataBufferAddress(), at);
          pos += bitmap;
        }
        case ShuffleColumns.FIXED -> {
          int w = widths[c];
          long bytes = (long) w * count;
          require(record, pos, bytes, c, "its values");
          Platform.copyMemory(record, BASE + pos, null, v.getDataBufferAddress() + (long) w * at, bytes);
          pos += bytes;
        }
        default -> pos = appendVariable((BaseVariableWidthVector) v, c, record, pos, count, at);
      }
    }
    if (pos != record.length) {
      throw ShuffleFormat.malformed("its columns end at byte " + pos + " but it holds " + record.length + " bytes");
    }
  }

  /** End offsets rebased after the batch's current last offset (checked non-decreasing), then one byte copy. */
  private long appendVariable(BaseVariableWidthVector v, int c, byte[] record, long pos, int count, int at) {
    require(record, pos, 4L * count, c, "its end offsets");
    long ends = BASE + pos;
    long offsets = v.getOffsetBufferAddress();
    int base = at == 0 ? 0 : Platform.getInt(null, offsets + 4L * at);
    if (at == 0) {
      Platform.putInt(null, offsets, 0);
    }
    long dataStart = pos + 4L * count;
    long room = Math.min(record.length - dataStart, (long) Integer.MAX_VALUE - base);
    int prev = 0;
    for (int i = 0; i < count; i++) {
      int end = Platform.getInt(record, ends + 4L * i);
      if (end < prev || end > room) {
        throw ShuffleFormat.malformed("column " + names[c] + ": end offset " + end + " of row " + i
            + " is below the previous " + prev + " or past the record's remaining " + (record.length - dataStart)
            + " bytes");
      }
      Platform.putInt(null, offsets + 4L * (at + 1 + i), base + end);
      prev = end;
    }
    long needBytes = (long) base + prev;
    long capacity = v.getDataBuffer().capacity();
    if (capacity < needBytes) {
      v.reallocDataBuffer(Math.max(needBytes, 2 * capacity));
    }
    Platform.copyMemory(record, BASE + dataStart, null, v.getDataBufferAddress() + base, prev);
    return dataStart + prev;
  }

  private void require(byte[] record, long pos, long bytes, int c, String what) {
    if (pos + bytes > record.length) {
      throw ShuffleFormat.malformed("column " + names[c] + ": " + what + " (" + bytes + " bytes at " + pos
          + ") run past its " + record.length + " bytes");
    }
  }

  private void allocate(int rows) {
    int initial = Math.max(rows, Math.min(batchSize, FIRST_ALLOCATION_ROWS));
    allocated = true; // from here on close() releases whatever was allocated, also after a failure below
    for (FieldVector v : vectors) {
      if (v instanceof BaseFixedWidthVector f) {
        f.allocateNew(initial);
      } else if (v instanceof BaseVariableWidthVector var) {
        var.allocateNew((long) initial * FIRST_BYTES_PER_VALUE, initial);
      }
    }
  }

  /** Doubles validity (and data or offsets) until the vector holds {@code rows} values. */
  private static void grow(FieldVector v, int rows) {
    if (v instanceof BaseVariableWidthVector var) {
      while (var.getValueCapacity() < rows) {
        var.reallocValidityAndOffsetBuffers();
      }
    } else {
      while (v.getValueCapacity() < rows) {
        v.reAlloc();
      }
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      pending = null;
      root.close();
    }
  }
}
