package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * Appends chosen rows of one Arrow column to the end of a growing column of the same type, reading and
 * writing the buffers directly: the destination grows once per call, then fixed-width values take one load
 * and one store each and variable-width values one bulk byte copy each (instead of copyFromSafe's capacity
 * check, type check and per-value dispatch). Other layouts (booleans, nested, views, large offsets) return
 * false and the caller copies value by value. (join.ArrowGather does the same into a fresh vector; this is
 * the appending form the aggregate kernels need.)
 */
final class ArrowAppend {
  private ArrowAppend() {}

  /**
   * Writes src rows {@code rows[0..count)} at dst positions {@code dstStart..dstStart+count)}; dst holds
   * exactly dstStart appended values before. Returns false (dst untouched) when the layout is not handled.
   */
  static boolean append(ValueVector src, int[] rows, int count, FieldVector dst, int dstStart) {
    if (count == 0) {
      return true;
    }
    if (src instanceof BaseFixedWidthVector s && !(src instanceof BitVector) && dst instanceof BaseFixedWidthVector d
        && src.getClass() == dst.getClass() && s.getTypeWidth() == d.getTypeWidth()) {
      checkRows(rows, count, s.getValueCount());
      checkFixedCapacity(s);
      while (d.getValueCapacity() < dstStart + count) {
        d.reAlloc();
      }
      fixed(s, rows, count, d, dstStart);
      return true;
    }
    if (src instanceof BaseVariableWidthVector s && dst instanceof BaseVariableWidthVector d
        && src.getClass() == dst.getClass() && d.getLastSet() == dstStart - 1) {
      checkRows(rows, count, s.getValueCount());
      variable(s, rows, count, d, dstStart);
      return true;
    }
    return false;
  }

  private static void checkRows(int[] rows, int count, int srcCount) {
    for (int i = 0; i < count; i++) {
      if (rows[i] < 0 || rows[i] >= srcCount) {
        throw new IndexOutOfBoundsException("row " + rows[i] + " outside a column of " + srcCount + " values");
      }
    }
  }

  /** The raw reads below go by address: the source's buffers must hold every one of its values. */
  private static void checkFixedCapacity(BaseFixedWidthVector s) {
    long n = s.getValueCount();
    if (s.getValidityBuffer().capacity() < BitVectorHelper.getValidityBufferSize((int) n)
        || s.getDataBuffer().capacity() < n * s.getTypeWidth()) {
      throw new IllegalArgumentException("column " + s.getName() + ": buffers shorter than its " + n + " values");
    }
  }

  private static void fixed(BaseFixedWidthVector s, int[] rows, int count, BaseFixedWidthVector d, int dstStart) {
    // Rows are checked against the source's value count and its buffers against that count; d has capacity
    // for dstStart + count values: every raw access below is inside a buffer.
    long sv = s.getValidityBufferAddress();
    long sd = s.getDataBufferAddress();
    long dv = d.getValidityBufferAddress();
    long dd = d.getDataBufferAddress();
    int w = s.getTypeWidth();
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      int at = dstStart + i;
      if (!isSet(sv, r)) {
        clearBit(dv, at);
        continue;
      }
      setBit(dv, at);
      switch (w) {
        case 8 -> MemoryUtil.putLong(dd + 8L * at, MemoryUtil.getLong(sd + 8L * r));
        case 4 -> MemoryUtil.putInt(dd + 4L * at, MemoryUtil.getInt(sd + 4L * r));
        case 16 -> {
          MemoryUtil.putLong(dd + 16L * at, MemoryUtil.getLong(sd + 16L * r));
          MemoryUtil.putLong(dd + 16L * at + 8, MemoryUtil.getLong(sd + 16L * r + 8));
        }
        default -> MemoryUtil.copyMemory(sd + (long) w * r, dd + (long) w * at, w);
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

  private static void clearBit(long bitmap, int i) {
    long at = bitmap + (i >>> 3);
    MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) & ~(1 << (i & 7))));
  }

  private static void variable(BaseVariableWidthVector s, int[] rows, int count, BaseVariableWidthVector d,
      int dstStart) {
    int n = s.getValueCount();
    boolean nulls = s.getNullCount() > 0;
    if ((nulls && s.getValidityBuffer().capacity() < BitVectorHelper.getValidityBufferSize(n))
        || s.getOffsetBuffer().capacity() < 4L * (n + 1)) {
      throw new IllegalArgumentException("column " + s.getName() + ": buffers shorter than its " + n + " values");
    }
    // Rows are checked against n, and the validity and offset buffers against n: raw reads stay inside them.
    long sv = nulls ? s.getValidityBufferAddress() : 0;
    long so = s.getOffsetBufferAddress();
    long sd = s.getDataBufferAddress();
    long dataCapacity = s.getDataBuffer().capacity();
    long total = 0;
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      if (sv == 0 || isSet(sv, r)) {
        int start = MemoryUtil.getInt(so + 4L * r);
        int end = MemoryUtil.getInt(so + 4L * r + 4);
        if (start < 0 || end < start || end > dataCapacity) {
          throw new IllegalArgumentException("column " + s.getName() + ": row " + r + " has offsets " + start
              + ".." + end + " outside its " + dataCapacity + " data bytes");
        }
        total += end - start;
      }
    }
    if (d.getValueCapacity() == 0) {
      d.allocateNew();
    }
    while (d.getValueCapacity() < dstStart + count) {
      d.reallocValidityAndOffsetBuffers();
    }
    long at = d.getOffsetBuffer().getInt((long) dstStart * 4);
    if (at + total > Integer.MAX_VALUE) {
      throw new IllegalStateException("column " + d.getName() + " would hold " + (at + total)
          + " bytes, more than one string column can; lower spark.rowmatch.batchSize or raise parallelism");
    }
    if (d.getDataBuffer().capacity() < at + total) {
      d.reallocDataBuffer(at + total);
    }
    // d holds dstStart + count values and at + total data bytes; the source offsets were checked above.
    long dv = d.getValidityBufferAddress();
    long dof = d.getOffsetBufferAddress();
    long dd = d.getDataBufferAddress();
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      int pos = dstStart + i;
      if (sv == 0 || isSet(sv, r)) {
        int start = MemoryUtil.getInt(so + 4L * r);
        int len = MemoryUtil.getInt(so + 4L * r + 4) - start;
        setBit(dv, pos);
        MemoryUtil.copyMemory(sd + start, dd + at, len);
        at += len;
      } else {
        clearBit(dv, pos);
      }
      MemoryUtil.putInt(dof + 4L * (pos + 1), (int) at);
    }
    d.setLastSet(dstStart + count - 1);
  }
}
