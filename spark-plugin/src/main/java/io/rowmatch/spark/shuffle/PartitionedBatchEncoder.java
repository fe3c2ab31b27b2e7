package io.rowmatch.spark.shuffle;

import static io.rowmatch.spark.shuffle.ShuffleFormat.BASE;

import java.util.Arrays;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;

import io.rowmatch.core.compare.ColumnLayout;

/**
 * Splits Arrow batches by partition id into one byte[] record per non-empty partition (layout:
 * {@link ShuffleFormat}). Per batch: one counting sort of the rows by partition (arrays reused between
 * calls), each record sized exactly, then filled column by column with raw reads of the Arrow buffers.
 * Buffer capacities are checked once per batch (through core's ColumnLayout) and variable-width offsets
 * once per value, so the copy loops read by address without Arrow's per-access checks. Not thread safe.
 */
public final class PartitionedBatchEncoder {
  /** Receives one record; Spark's shuffle writer in production. */
  @FunctionalInterface
  public interface RecordSink {
    void accept(int partition, byte[] record);
  }

  /** A Java array holds at most this many bytes on common JVMs. */
  private static final long MAX_RECORD = Integer.MAX_VALUE - 16;

  private final String[] names;
  private final int[] kinds;
  private final int[] widths;
  /** Per batch: each column's layout and whether it has nulls (a bitmap is written for every record). */
  private final ColumnLayout[] layouts;
  private final boolean[] nulls;
  /** Rows of the batch grouped by partition, in batch order within each; partition p's are order[starts[p]..starts[p+1]). */
  private int[] order = new int[0];
  private int[] starts = new int[0];
  private int[] cursor = new int[0];
  private long[] sizes = new long[0];
  /** Bytes per row of the UnsafeRow the same row would be in Spark's row shuffle, before variable-length values. */
  private final long unsafeRowFixedBytes;
  /** The last batch's size as Spark's UnsafeRows: what vanilla's exchange reports as "data size" to AQE. */
  private long unsafeRowBytes;

  public PartitionedBatchEncoder(StructType schema) {
    ShuffleFormat.requireLittleEndian();
    this.kinds = ShuffleColumns.kinds(schema);
    this.widths = ShuffleColumns.widths(schema);
    this.names = schema.fieldNames();
    this.layouts = new ColumnLayout[kinds.length];
    this.nulls = new boolean[kinds.length];
    this.unsafeRowFixedBytes = unsafeRowFixedBytes(schema);
  }

  /**
   * An UnsafeRow is a null bitmap of 64-bit words, one 8-byte slot per field, then the variable-length
   * values, each padded to 8 bytes. Decimals above 18 digits always take 16 bytes there, null or not
   * (Spark's UnsafeRowWriter reserves them so the value can be updated in place).
   */
  static long unsafeRowFixedBytes(StructType schema) {
    int fields = schema.fields().length;
    long bytes = 8L * ((fields + 63) / 64) + 8L * fields;
    for (var f : schema.fields()) {
      if (f.dataType() instanceof DecimalType d && d.precision() > Decimal.MAX_LONG_DIGITS()) {
        bytes += 16;
      }
    }
    return bytes;
  }

  /** The last encoded batch's rows measured as Spark's UnsafeRows (bitmap, slots, padded values). */
  public long unsafeRowBytes() {
    return unsafeRowBytes;
  }

  /**
   * For each partition p that has rows, emits one record holding those rows in batch order. Returns the
   * total bytes emitted. partitionIds[r] must be in [0, numPartitions) for every row r of the batch.
   */
  public long encode(ColumnarBatch batch, int[] partitionIds, int numPartitions, RecordSink sink) {
    int n = batch.numRows();
    if (numPartitions <= 0) {
      throw new IllegalArgumentException("numPartitions must be positive, got " + numPartitions);
    }
    if (partitionIds.length < n) {
      throw new IllegalArgumentException(partitionIds.length + " partition ids for a batch of " + n + " rows");
    }
    if (batch.numCols() != kinds.length) {
      throw new IllegalArgumentException("batch has " + batch.numCols() + " columns, the schema " + kinds.length);
    }
    unsafeRowBytes = 0;
    if (n == 0) {
      return 0;
    }
    unsafeRowBytes = unsafeRowFixedBytes * n;
    groupByPartition(partitionIds, n, numPartitions);
    try {
      for (int c = 0; c < kinds.length; c++) {
        bind(c, batch.column(c), n);
      }
      sizeRecords(partitionIds, n, numPartitions);
      long total = 0;
      for (int p = 0; p < numPartitions; p++) {
        int count = starts[p + 1] - starts[p];
        if (count > 0) {
          byte[] record = new byte[(int) sizes[p]];
          fill(record, starts[p], count);
          sink.accept(p, record);
          total += record.length;
        }
      }
      return total;
    } finally {
      Arrays.fill(layouts, null); // hold no reference to the caller's buffers between calls
    }
  }

  /** Counting sort: stable, so each partition's rows stay in batch order. */
  private void groupByPartition(int[] ids, int n, int numPartitions) {
    if (starts.length < numPartitions + 1) {
      starts = new int[numPartitions + 1];
      cursor = new int[numPartitions + 1];
      sizes = new long[numPartitions + 1];
    }
    if (order.length < n) {
      order = new int[Math.max(n, order.length * 2)];
    }
    Arrays.fill(starts, 0, numPartitions + 1, 0);
    for (int r = 0; r < n; r++) {
      int p = ids[r];
      if (p < 0 || p >= numPartitions) {
        throw new IllegalArgumentException("row " + r + " has partition id " + p + ", outside [0, "
            + numPartitions + ")");
      }
      starts[p + 1]++;
    }
    for (int p = 0; p < numPartitions; p++) {
      starts[p + 1] += starts[p];
    }
    System.arraycopy(starts, 0, cursor, 0, numPartitions);
    for (int r = 0; r < n; r++) {
      order[cursor[ids[r]]++] = r;
    }
  }

  /** Reads column c's buffers (capacities checked for all its values) and checks its vector matches the schema. */
  private void bind(int c, ColumnVector column, int n) {
    if (!(column instanceof ArrowColumnVector arrow)) {
      throw new IllegalArgumentException("column " + names[c] + " is a " + column.getClass().getName()
          + ", not an ArrowColumnVector");
    }
    ValueVector v = arrow.getValueVector();
    boolean matches = switch (kinds[c]) {
      case ShuffleColumns.NULL -> v instanceof NullVector;
      case ShuffleColumns.BIT -> v instanceof BitVector;
      case ShuffleColumns.FIXED -> v instanceof BaseFixedWidthVector f && !(v instanceof BitVector)
          && f.getTypeWidth() == widths[c];
      default -> v instanceof BaseVariableWidthVector;
    };
    if (!matches) {
      throw new IllegalArgumentException("column " + names[c] + " is a " + v.getClass().getSimpleName()
          + ", not the vector its schema type maps to");
    }
    ColumnLayout layout = ColumnLayout.of(v, "column " + names[c]);
    if (layout.valueCount < n) {
      throw new IllegalArgumentException("column " + names[c] + " holds " + layout.valueCount
          + " values, fewer than the batch's " + n + " rows");
    }
    layouts[c] = layout;
    nulls[c] = kinds[c] != ShuffleColumns.NULL && layout.validity != 0 && v.getNullCount() > 0;
  }

  private void sizeRecords(int[] ids, int n, int numPartitions) {
    for (int p = 0; p < numPartitions; p++) {
      int count = starts[p + 1] - starts[p];
      long size = count == 0 ? 0 : ShuffleFormat.HEADER_BYTES;
      for (int c = 0; count > 0 && c < kinds.length; c++) {
        size += ShuffleFormat.columnBytes(kinds[c], widths[c], nulls[c], count, 0);
      }
      sizes[p] = size;
    }
    for (int c = 0; c < kinds.length; c++) {
      if (kinds[c] == ShuffleColumns.VAR) {
        addValueBytes(c, ids, n);
      }
    }
    for (int p = 0; p < numPartitions; p++) {
      if (sizes[p] > MAX_RECORD) {
        throw new IllegalStateException("the rows of one batch for shuffle partition " + p + " need " + sizes[p]
            + " bytes, more than one record can hold; lower spark.rowmatch.batchSize");
      }
    }
  }

  /** Adds each valid value's length to its partition's record, checking its offsets against the data buffer. */
  private void addValueBytes(int c, int[] ids, int n) {
    ColumnLayout l = layouts[c];
    long validity = nulls[c] ? l.validity : 0;
    for (int r = 0; r < n; r++) {
      if (validity == 0 || (Platform.getByte(null, validity + (r >>> 3)) & (1 << (r & 7))) != 0) {
        int start = Platform.getInt(null, l.offsets + 4L * r);
        int end = Platform.getInt(null, l.offsets + 4L * r + 4);
        if (start < 0 || end < start || end > l.dataCapacity) {
          throw l.badOffsets(r, start, end, l.dataCapacity);
        }
        sizes[ids[r]] += end - start;
        unsafeRowBytes += (end - start + 7) & ~7L;
      }
    }
  }

  private void fill(byte[] record, int from, int count) {
    record[0] = ShuffleFormat.VERSION;
    Platform.putInt(record, BASE + 1, kinds.length);
    Platform.putInt(record, BASE + 5, count);
    long at = ShuffleFormat.HEADER_BYTES;
    for (int c = 0; c < kinds.length; c++) {
      int kind = kinds[c];
      if (kind == ShuffleColumns.NULL) {
        continue;
      }
      ColumnLayout l = layouts[c];
      if (nulls[c]) {
        record[(int) at] = ShuffleFormat.HAS_NULLS;
        ShuffleBits.gather(l.validity, order, from, count, record, at + 1);
        at += 1 + ShuffleFormat.bitmapBytes(count);
      } else {
        record[(int) at] = ShuffleFormat.NO_NULLS;
        at += 1;
      }
      switch (kind) {
        case ShuffleColumns.BIT -> {
          ShuffleBits.gather(l.data, order, from, count, record, at);
          at += ShuffleFormat.bitmapBytes(count);
        }
        case ShuffleColumns.FIXED -> {
          fixed(l.data, widths[c], from, count, record, at);
          at += (long) widths[c] * count;
        }
        default -> at = variable(l, nulls[c] ? l.validity : 0, from, count, record, at);
      }
    }
    if (at != record.length) {
      throw new IllegalStateException("record sized " + record.length + " bytes but filled " + at);
    }
  }

  /** One load and one store per value; rows are < the column's checked value count. */
  private void fixed(long data, int width, int from, int count, byte[] record, long at) {
    int[] rows = order;
    long dst = BASE + at;
    switch (width) {
      case 1 -> {
        for (int i = 0; i < count; i++) {
          Platform.putByte(record, dst + i, Platform.getByte(null, data + rows[from + i]));
        }
      }
      case 2 -> {
        for (int i = 0; i < count; i++) {
          Platform.putShort(record, dst + 2L * i, Platform.getShort(null, data + 2L * rows[from + i]));
        }
      }
      case 4 -> {
        for (int i = 0; i < count; i++) {
          Platform.putInt(record, dst + 4L * i, Platform.getInt(null, data + 4L * rows[from + i]));
        }
      }
      case 8 -> {
        for (int i = 0; i < count; i++) {
          Platform.putLong(record, dst + 8L * i, Platform.getLong(null, data + 8L * rows[from + i]));
        }
      }
      default -> {
        for (int i = 0; i < count; i++) {
          long src = data + 16L * rows[from + i];
          Platform.putLong(record, dst + 16L * i, Platform.getLong(null, src));
          Platform.putLong(record, dst + 16L * i + 8, Platform.getLong(null, src + 8));
        }
      }
    }
  }

  /** End offsets, then the bytes; each valid value's offsets were checked by {@link #addValueBytes}. */
  private long variable(ColumnLayout l, long validity, int from, int count, byte[] record, long at) {
    int[] rows = order;
    long ends = BASE + at;
    long bytes = BASE + at + 4L * count;
    int end = 0;
    for (int i = 0; i < count; i++) {
      int r = rows[from + i];
      if (validity == 0 || (Platform.getByte(null, validity + (r >>> 3)) & (1 << (r & 7))) != 0) {
        int start = Platform.getInt(null, l.offsets + 4L * r);
        int len = Platform.getInt(null, l.offsets + 4L * r + 4) - start;
        Platform.copyMemory(null, l.data + start, record, bytes + end, len);
        end += len;
      }
      Platform.putInt(record, ends + 4L * i, end);
    }
    return at + 4L * count + end;
  }
}
