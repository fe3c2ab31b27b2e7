package io.rowmatch.spark.arrow;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.unsafe.types.UTF8String;

import io.rowmatch.core.arrow.ArrowCopy;

/**
 * An ArrowColumnVector for batches Spark reads row by row (ColumnarToRow before a shuffle or at a query's
 * output): every value read through ArrowColumnVector goes through Arrow's checked accessors, which test
 * the buffer's reference count and bounds on each byte and re-read the validity bit inside get(). Here
 * the buffers are checked once, at construction, against the vector's value count (which must not change
 * while this wraps it: our operators hand out finished vectors), and each read checks only its row index
 * (and, for strings, the value's offsets against the data buffer), then reads by address. Columns of other
 * types read as ArrowColumnVector does. It stays an ArrowColumnVector, so Rowmatch operators downstream
 * still unwrap the Arrow vector zero copy.
 */
public final class RowReadArrowColumnVector extends ArrowColumnVector {
  /** Kinds with a direct path; OTHER reads through ArrowColumnVector. */
  private static final int OTHER = 0;
  private static final int LONG = 1;
  private static final int INT = 2;
  private static final int DOUBLE = 3;
  private static final int UTF8 = 4;
  private static final int BOOLEAN = 5;

  private final int kind;
  private final int valueCount;
  /** Validity bitmap address, or 0 when the column has no nulls. */
  private final long validity;
  private final long data;
  private final long offsets;
  private final long dataCapacity;

  public RowReadArrowColumnVector(ValueVector vector) {
    super(vector);
    int n = vector.getValueCount();
    int k = kindOf(vector);
    long v = 0;
    long d = 0;
    long o = 0;
    long cap = 0;
    if (k != OTHER && n > 0) {
      boolean nulls = vector.getNullCount() > 0;
      if (nulls && vector.getValidityBuffer().capacity() < ArrowCopy.validityBytes(n)) {
        k = OTHER; // malformed or unusual buffers: leave every check to Arrow
      } else if (k == BOOLEAN) {
        if (vector.getDataBuffer().capacity() < ArrowCopy.validityBytes(n)) {
          k = OTHER;
        } else {
          d = vector.getDataBuffer().memoryAddress();
        }
      } else if (k == UTF8) {
        VarCharVector s = (VarCharVector) vector;
        if (s.getOffsetBuffer().capacity() < 4L * (n + 1)) {
          k = OTHER;
        } else {
          o = s.getOffsetBufferAddress();
          d = s.getDataBufferAddress();
          cap = s.getDataBuffer().capacity();
        }
      } else {
        BaseFixedWidthVector f = (BaseFixedWidthVector) vector;
        if (f.getDataBuffer().capacity() < (long) n * f.getTypeWidth()) {
          k = OTHER;
        } else {
          d = f.getDataBufferAddress();
        }
      }
      if (k != OTHER && nulls) {
        v = vector.getValidityBuffer().memoryAddress();
      }
    } else {
      k = OTHER;
    }
    this.kind = k;
    this.valueCount = n;
    this.validity = v;
    this.data = d;
    this.offsets = o;
    this.dataCapacity = cap;
  }

  private static int kindOf(ValueVector v) {
    if (v instanceof BigIntVector || v instanceof TimeStampVector) {
      return LONG;
    }
    if (v instanceof IntVector || v instanceof DateDayVector) {
      return INT;
    }
    if (v instanceof Float8Vector) {
      return DOUBLE;
    }
    if (v instanceof VarCharVector) {
      return UTF8;
    }
    if (v instanceof BitVector) {
      return BOOLEAN;
    }
    return OTHER;
  }

  private void checkRow(int rowId) {
    if (rowId < 0 || rowId >= valueCount) {
      throw new IndexOutOfBoundsException("row " + rowId + " of a column of " + valueCount + " values");
    }
  }

  /** Row checked by the caller; validity capacity checked at construction. */
  private boolean nullAt(int rowId) {
    return validity != 0 && (MemoryUtil.getByte(validity + (rowId >>> 3)) & (1 << (rowId & 7))) == 0;
  }

  @Override
  public boolean isNullAt(int rowId) {
    if (kind == OTHER) {
      return super.isNullAt(rowId);
    }
    checkRow(rowId);
    return nullAt(rowId);
  }

  @Override
  public long getLong(int rowId) {
    if (kind != LONG) {
      return super.getLong(rowId);
    }
    checkRow(rowId);
    return MemoryUtil.getLong(data + 8L * rowId);
  }

  @Override
  public int getInt(int rowId) {
    if (kind != INT) {
      return super.getInt(rowId);
    }
    checkRow(rowId);
    return MemoryUtil.getInt(data + 4L * rowId);
  }

  @Override
  public double getDouble(int rowId) {
    if (kind != DOUBLE) {
      return super.getDouble(rowId);
    }
    checkRow(rowId);
    return Double.longBitsToDouble(MemoryUtil.getLong(data + 8L * rowId));
  }

  @Override
  public boolean getBoolean(int rowId) {
    if (kind != BOOLEAN) {
      return super.getBoolean(rowId);
    }
    checkRow(rowId);
    return (MemoryUtil.getByte(data + (rowId >>> 3)) & (1 << (rowId & 7))) != 0;
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (kind != UTF8) {
      return super.getUTF8String(rowId);
    }
    checkRow(rowId);
    if (nullAt(rowId)) {
      return null;
    }
    int start = MemoryUtil.getInt(offsets + 4L * rowId);
    int end = MemoryUtil.getInt(offsets + 4L * rowId + 4);
    if (start < 0 || end < start || end > dataCapacity) {
      throw new IllegalStateException("string row " + rowId + " has offsets " + start + ".." + end
          + " outside its column's " + dataCapacity + " data bytes");
    }
    return UTF8String.fromAddress(null, data + start, end - start);
  }
}
