package io.rowmatch.spark.join;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * Gathers rows of one Arrow column into a fresh vector by reading and writing the buffers directly: for
 * fixed-width columns one load and one store per value, for variable-width columns one bulk byte copy per
 * value after sizing the data buffer exactly. Row index -1 is a null. Other layouts return false and the
 * caller copies value by value with copyFromSafe.
 */
final class ArrowGather {
  private ArrowGather() {}

  /** Allocates {@code dst} for {@code count} rows and fills it; false (nothing allocated) when not handled. */
  static boolean gather(ValueVector src, int[] rows, FieldVector dst, int count) {
    if (src instanceof BaseFixedWidthVector s && !(src instanceof BitVector) && dst instanceof BaseFixedWidthVector d
        && src.getClass() == dst.getClass() && s.getTypeWidth() == d.getTypeWidth() && buffersCover(s)) {
      d.allocateNew(Math.max(count, 1));
      fixed(s, rows, d, count);
      return true;
    }
    if (src instanceof BaseVariableWidthVector s && dst instanceof BaseVariableWidthVector d
        && src.getClass() == dst.getClass()) {
      variable(s, rows, d, count);
      return true;
    }
    return false;
  }

  /** The raw path reads validity and data by address: both buffers must hold every value. */
  private static boolean buffersCover(BaseFixedWidthVector s) {
    long n = s.getValueCount();
    return s.getValidityBuffer().capacity() * 8 >= n && s.getDataBuffer().capacity() >= n * s.getTypeWidth();
  }

  private static void checkRows(int[] rows, int count, int srcCount) {
    for (int i = 0; i < count; i++) {
      if (rows[i] >= srcCount) {
        throw new IndexOutOfBoundsException("row " + rows[i] + " outside a column of " + srcCount + " values");
      }
    }
  }

  private static void fixed(BaseFixedWidthVector s, int[] rows, BaseFixedWidthVector d, int count) {
    checkRows(rows, count, s.getValueCount());
    // Rows are checked against the source's value count above, and d holds count values: the raw reads and
    // writes below stay inside both vectors' buffers.
    long sv = s.getValidityBufferAddress();
    long sd = s.getDataBufferAddress();
    long dv = d.getValidityBufferAddress();
    long dd = d.getDataBufferAddress();
    int w = s.getTypeWidth();
    switch (w) {
      case 8 -> {
        for (int i = 0; i < count; i++) {
          int r = rows[i];
          if (r >= 0 && isSet(sv, r)) {
            setBit(dv, i);
            MemoryUtil.putLong(dd + 8L * i, MemoryUtil.getLong(sd + 8L * r));
          }
        }
      }
      case 4 -> {
        for (int i = 0; i < count; i++) {
          int r = rows[i];
          if (r >= 0 && isSet(sv, r)) {
            setBit(dv, i);
            MemoryUtil.putInt(dd + 4L * i, MemoryUtil.getInt(sd + 4L * r));
          }
        }
      }
      default -> {
        for (int i = 0; i < count; i++) {
          int r = rows[i];
          if (r >= 0 && isSet(sv, r)) {
            setBit(dv, i);
            MemoryUtil.copyMemory(sd + (long) w * r, dd + (long) w * i, w);
          }
        }
      }
    }
  }

  private static boolean isSet(long bitmap, int i) {
    return (MemoryUtil.getByte(bitmap + (i >>> 3)) & (1 << (i & 7))) != 0;
  }

  private static void setBit(long bitmap, int i) {
    long at = bitmap + (i >>> 3);
    MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | (1 << (i & 7))));
  }

  private static void variable(BaseVariableWidthVector s, int[] rows, BaseVariableWidthVector d, int count) {
    checkRows(rows, count, s.getValueCount());
    ArrowBuf sv = s.getValidityBuffer();
    ArrowBuf so = s.getOffsetBuffer();
    ArrowBuf sd = s.getDataBuffer();
    long total = 0;
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      if (r >= 0 && BitVectorHelper.get(sv, r) != 0) {
        total += so.getInt((long) (r + 1) * 4) - so.getInt((long) r * 4);
      }
    }
    if (total > Integer.MAX_VALUE) {
      throw new IllegalStateException("a join output batch would hold " + total + " bytes in one string column;"
          + " lower spark.rowmatch.batchSize");
    }
    d.allocateNew(Math.max(total, 1), Math.max(count, 1));
    ArrowBuf dv = d.getValidityBuffer();
    ArrowBuf dof = d.getOffsetBuffer();
    ArrowBuf dd = d.getDataBuffer();
    int at = 0;
    dof.setInt(0, 0);
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      if (r >= 0 && BitVectorHelper.get(sv, r) != 0) {
        int start = so.getInt((long) r * 4);
        int len = so.getInt((long) (r + 1) * 4) - start;
        BitVectorHelper.setBit(dv, i);
        dd.setBytes(at, sd, start, len);
        at += len;
      }
      dof.setInt((long) (i + 1) * 4, at);
    }
    d.setLastSet(count - 1);
  }
}
