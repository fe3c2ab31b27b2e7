package io.rowmatch.spark.arrow;

import java.util.List;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.arrow.ArrowFieldWriter;
import org.apache.spark.sql.execution.arrow.ArrowWriter$;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes Spark rows into the vectors of one Arrow batch of at most {@code capacity} rows, as Spark's
 * ArrowWriter would, but without its per-value virtual calls and capacity checks: each column's kind is
 * resolved once, fixed-width buffers are sized for a whole batch up front, and values go straight to the
 * buffers' memory. UnsafeRow strings and binaries are copied from the row's bytes without a UTF8String.
 * Nested columns (struct, array, map) still go through Spark's own field writer, which is exact for them.
 *
 * <p>Use: {@link #startBatch()}, {@link #write(InternalRow)} at most capacity times, {@link #finishBatch()}.
 */
public final class ArrowRowWriter {
  private static final int BOOL = SparkArrowKind.BOOL;
  private static final int BYTE = SparkArrowKind.BYTE;
  private static final int SHORT = SparkArrowKind.SHORT;
  private static final int INT = SparkArrowKind.INT;
  private static final int LONG = SparkArrowKind.LONG;
  private static final int FLOAT = SparkArrowKind.FLOAT;
  private static final int DOUBLE = SparkArrowKind.DOUBLE;
  private static final int DECIMAL_LONG = SparkArrowKind.DECIMAL_LONG;
  private static final int DECIMAL_WIDE = SparkArrowKind.DECIMAL_WIDE;
  private static final int VAR = SparkArrowKind.VAR;
  private static final int NULL = SparkArrowKind.NULL;
  private static final int NESTED = SparkArrowKind.NESTED;

  private static final int INITIAL_BYTES_PER_VALUE = 16;

  private final FieldVector[] vectors;
  private final int[] kinds;
  private final int[] precisions;
  private final int[] scales;
  private final ArrowFieldWriter[] nested;
  private final int capacity;
  // Per column, refreshed at each batch start and after a data buffer grows.
  private final long[] validity;
  private final long[] data;
  private final long[] offsets;
  private final long[] dataCapacity;
  private final long[] dataEnd;
  private int count;

  ArrowRowWriter(VectorSchemaRoot root, int capacity) {
    List<FieldVector> list = root.getFieldVectors();
    int n = list.size();
    this.vectors = list.toArray(new FieldVector[0]);
    this.kinds = new int[n];
    this.precisions = new int[n];
    this.scales = new int[n];
    this.nested = new ArrowFieldWriter[n];
    this.capacity = capacity;
    this.validity = new long[n];
    this.data = new long[n];
    this.offsets = new long[n];
    this.dataCapacity = new long[n];
    this.dataEnd = new long[n];
    for (int c = 0; c < n; c++) {
      FieldVector v = vectors[c];
      kinds[c] = SparkArrowKind.of(v);
      if (v instanceof DecimalVector d) {
        precisions[c] = d.getPrecision();
        scales[c] = d.getScale();
      }
      if (kinds[c] == NESTED) {
        nested[c] = ArrowWriter$.MODULE$.createFieldWriter(v);
      } else if (v instanceof BaseVariableWidthVector var) {
        var.allocateNew((long) capacity * INITIAL_BYTES_PER_VALUE, capacity);
      } else if (v instanceof BaseFixedWidthVector fixed) {
        fixed.allocateNew(capacity);
      }
    }
  }

  int capacity() {
    return capacity;
  }

  int count() {
    return count;
  }

  /** Clears the batch: validity (and boolean values) zeroed, offsets restarted, nested writers reset. */
  void startBatch() {
    count = 0;
    long bitmapBytes = (capacity + 7) / 8;
    for (int c = 0; c < vectors.length; c++) {
      FieldVector v = vectors[c];
      switch (kinds[c]) {
        case NULL:
          break;
        case NESTED:
          nested[c].reset();
          break;
        default:
          if (v.getValueCapacity() < capacity) {
            // A consumer may have cleared the vector; size it for a whole batch again.
            if (v instanceof BaseVariableWidthVector var) {
              var.allocateNew((long) capacity * INITIAL_BYTES_PER_VALUE, capacity);
            } else {
              ((BaseFixedWidthVector) v).allocateNew(capacity);
            }
          }
          v.getValidityBuffer().setZero(0, bitmapBytes);
          validity[c] = v.getValidityBufferAddress();
          if (kinds[c] == BOOL) {
            v.getDataBuffer().setZero(0, bitmapBytes);
          }
          if (kinds[c] == VAR) {
            refreshVar(c);
            dataEnd[c] = 0;
            MemoryUtil.putInt(offsets[c], 0);
          } else {
            data[c] = v.getDataBufferAddress();
          }
      }
    }
  }

  private void refreshVar(int c) {
    BaseVariableWidthVector v = (BaseVariableWidthVector) vectors[c];
    data[c] = v.getDataBufferAddress();
    dataCapacity[c] = v.getDataBuffer().capacity();
    offsets[c] = v.getOffsetBufferAddress();
  }

  /** Appends one row; the caller guarantees count() < capacity() and the batch's schema. */
  void write(InternalRow row) {
    final boolean unsafeRow = row instanceof UnsafeRow;
    for (int c = 0; c < kinds.length; c++) {
      int kind = kinds[c];
      if (kind == NESTED) {
        nested[c].write(row, c);
        continue;
      }
      if (kind == NULL) {
        continue;
      }
      if (row.isNullAt(c)) {
        putNull(c);
        continue;
      }
      switch (kind) {
        case BOOL -> putBoolean(c, row.getBoolean(c));
        case BYTE -> putByte(c, row.getByte(c));
        case SHORT -> putShort(c, row.getShort(c));
        case INT -> putInt(c, row.getInt(c));
        case LONG -> putLong(c, row.getLong(c));
        case FLOAT -> putFloat(c, row.getFloat(c));
        case DOUBLE -> putDouble(c, row.getDouble(c));
        case DECIMAL_LONG -> {
          if (unsafeRow) {
            // An UnsafeRow stores a decimal of at most 18 digits as its unscaled long at the column's scale.
            valid(c);
            putUnscaled(c, row.getLong(c));
          } else {
            putDecimal(c, row.getDecimal(c, precisions[c], scales[c]));
          }
        }
        case DECIMAL_WIDE -> putDecimal(c, row.getDecimal(c, precisions[c], scales[c]));
        default -> {
          valid(c);
          if (unsafeRow) {
            UnsafeRow u = (UnsafeRow) row;
            long offsetAndSize = u.getLong(c);
            putBytes(c, u.getBaseObject(), u.getBaseOffset() + (offsetAndSize >>> 32), (int) offsetAndSize);
          } else if (vectors[c] instanceof VarCharVector) {
            UTF8String s = row.getUTF8String(c);
            putBytes(c, s.getBaseObject(), s.getBaseOffset(), s.numBytes());
          } else {
            byte[] b = row.getBinary(c);
            putBytes(c, b, Platform.BYTE_ARRAY_OFFSET, b.length);
          }
        }
      }
    }
    count++;
  }

  // The same row a column at a time, for code that holds the row's values in variables (the generated code of
  // ArrowSinkExec): one put or putNull per column of a flat schema, then endRow(); count() < capacity().

  /** A null in column c (a null column's only value). */
  public void putNull(int c) {
    if (kinds[c] == VAR) {
      MemoryUtil.putInt(offsets[c] + 4L * (count + 1), (int) dataEnd[c]);
    }
  }

  public void putBoolean(int c, boolean v) {
    valid(c);
    if (v) {
      long valueByte = data[c] + (count >>> 3);
      MemoryUtil.putByte(valueByte, (byte) (MemoryUtil.getByte(valueByte) | (1 << (count & 7))));
    }
  }

  public void putByte(int c, byte v) {
    valid(c);
    MemoryUtil.putByte(data[c] + count, v);
  }

  public void putShort(int c, short v) {
    valid(c);
    MemoryUtil.putShort(data[c] + 2L * count, v);
  }

  /** An int, or a date (days). */
  public void putInt(int c, int v) {
    valid(c);
    MemoryUtil.putInt(data[c] + 4L * count, v);
  }

  /** A long, or a timestamp (microseconds). */
  public void putLong(int c, long v) {
    valid(c);
    MemoryUtil.putLong(data[c] + 8L * count, v);
  }

  public void putFloat(int c, float v) {
    valid(c);
    MemoryUtil.putInt(data[c] + 4L * count, Float.floatToRawIntBits(v));
  }

  public void putDouble(int c, double v) {
    valid(c);
    MemoryUtil.putLong(data[c] + 8L * count, Double.doubleToRawLongBits(v));
  }

  /** As Spark's ArrowWriter: a decimal that cannot take the column's precision and scale is written as null. */
  public void putDecimal(int c, Decimal d) {
    if (!d.changePrecision(precisions[c], scales[c])) {
      putNull(c);
      return;
    }
    valid(c);
    if (kinds[c] == DECIMAL_LONG) {
      putUnscaled(c, d.toUnscaledLong());
    } else {
      ((DecimalVector) vectors[c]).set(count, d.toJavaBigDecimal());
    }
  }

  public void putUTF8String(int c, UTF8String s) {
    valid(c);
    putBytes(c, s.getBaseObject(), s.getBaseOffset(), s.numBytes());
  }

  public void putBinary(int c, byte[] b) {
    valid(c);
    putBytes(c, b, Platform.BYTE_ARRAY_OFFSET, b.length);
  }

  /** Ends the row the puts wrote. */
  public void endRow() {
    count++;
  }

  private void valid(int c) {
    long bitByte = validity[c] + (count >>> 3);
    MemoryUtil.putByte(bitByte, (byte) (MemoryUtil.getByte(bitByte) | (1 << (count & 7))));
  }

  private void putUnscaled(int c, long unscaled) {
    long at = data[c] + 16L * count;
    MemoryUtil.putLong(at, unscaled);
    MemoryUtil.putLong(at + 8, unscaled >> 63);
  }

  private void putBytes(int c, Object base, long address, int size) {
    long end = dataEnd[c] + size;
    if (end > dataCapacity[c]) {
      grow(c, end);
    }
    Platform.copyMemory(base, address, null, data[c] + dataEnd[c], size);
    dataEnd[c] = end;
    MemoryUtil.putInt(offsets[c] + 4L * (count + 1), (int) end);
  }

  private void grow(int c, long needed) {
    if (needed > Integer.MAX_VALUE) {
      throw new IllegalStateException("column " + vectors[c].getName() + ": more than 2 GiB of bytes in one "
          + "batch of " + capacity + " rows; lower spark.rowmatch.batchSize");
    }
    BaseVariableWidthVector v = (BaseVariableWidthVector) vectors[c];
    // The realloc copies the bytes written so far and keeps the validity and offset buffers.
    v.reallocDataBuffer(Math.max(needed, 2 * dataCapacity[c]));
    refreshVar(c);
  }

  /** Sets every vector's value count (and nested writers' state) to the rows written. */
  void finishBatch() {
    for (int c = 0; c < vectors.length; c++) {
      switch (kinds[c]) {
        case NESTED:
          nested[c].finish();
          break;
        case VAR:
          ((BaseVariableWidthVector) vectors[c]).setLastSet(count - 1);
          vectors[c].setValueCount(count);
          break;
        default:
          vectors[c].setValueCount(count);
      }
    }
  }
}
