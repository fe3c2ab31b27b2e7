package io.rowmatch.core.table;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.compare.ColumnLayout;

/**
 * Copies chosen rows of one batch column to the end of a stored key column of the same type. Fixed-width and
 * 32-bit-offset variable-width columns (the common key types) are appended in bulk: capacity reserved once
 * per batch, then raw copies; every other type goes row by row through Arrow's {@code copyFromSafe}.
 */
final class KeyAppend {
  private KeyAppend() {}

  static void append(FieldVector dst, int base, ValueVector src, int[] rows, int count) {
    if (dst instanceof BaseFixedWidthVector && !(dst instanceof BitVector) && src.getClass() == dst.getClass()) {
      fixed((BaseFixedWidthVector) dst, base, (BaseFixedWidthVector) src, rows, count);
    } else if (dst instanceof BaseVariableWidthVector && src.getClass() == dst.getClass()) {
      var32((BaseVariableWidthVector) dst, base, (BaseVariableWidthVector) src, rows, count);
    } else {
      for (int k = 0; k < count; k++) {
        dst.copyFromSafe(rows[k], base + k, src);
      }
    }
  }

  private static void fixed(BaseFixedWidthVector dst, int base, BaseFixedWidthVector src, int[] rows, int count) {
    int width = dst.getTypeWidth();
    int end = base + count;
    while (dst.getValueCapacity() < end) {
      dst.reAlloc();
    }
    ArrowBuf validity = dst.getValidityBuffer();
    long to = dst.getDataBuffer().memoryAddress();
    long from = src.getDataBuffer().memoryAddress();
    // The source column passed the table's checks: its data buffer holds valueCount * width bytes.
    checkRows(src, rows, count);
    for (int k = 0; k < count; k++) {
      int r = rows[k];
      int at = base + k;
      if (src.isNull(r)) {
        BitVectorHelper.unsetBit(validity, at);
      } else {
        BitVectorHelper.setBit(validity, at);
        MemoryUtil.copyMemory(from + (long) width * r, to + (long) width * at, width);
      }
    }
  }

  private static void var32(BaseVariableWidthVector dst, int base, BaseVariableWidthVector src, int[] rows,
      int count) {
    checkRows(src, rows, count);
    ArrowBuf srcOffsets = src.getOffsetBuffer();
    long srcData = src.getDataBuffer().memoryAddress();
    long srcCapacity = src.getDataBuffer().capacity();
    long bytes = 0;
    for (int k = 0; k < count; k++) {
      int r = rows[k];
      if (!src.isNull(r)) {
        int s = srcOffsets.getInt(4L * r);
        int e = srcOffsets.getInt(4L * r + 4);
        if (s < 0 || s > e || e > srcCapacity) {
          throw ColumnLayout.malformed(src.getName(), "offsets of row " + r + " are [" + s + ", " + e
              + ") outside [0, " + srcCapacity + "] or decreasing");
        }
        bytes += e - s;
      }
    }
    int end = base + count;
    while (dst.getValueCapacity() < end) {
      dst.reallocValidityAndOffsetBuffers();
    }
    // Offsets before base are final (lastSet = base - 1 after the previous append; offset[0] = 0 when empty).
    ArrowBuf dstOffsets = dst.getOffsetBuffer();
    int start = base == 0 ? 0 : dstOffsets.getInt(4L * base);
    long needed = start + bytes;
    if (needed > Integer.MAX_VALUE) {
      throw new IllegalStateException(dst.getName() + ": stored key bytes would exceed 2 GiB");
    }
    while (dst.getDataBuffer().capacity() < needed) {
      dst.reallocDataBuffer(Math.max(needed, 2 * dst.getDataBuffer().capacity()));
    }
    ArrowBuf validity = dst.getValidityBuffer();
    long to = dst.getDataBuffer().memoryAddress();
    dstOffsets.setInt(4L * base, start);
    int at = start;
    for (int k = 0; k < count; k++) {
      int r = rows[k];
      int row = base + k;
      if (src.isNull(r)) {
        BitVectorHelper.unsetBit(validity, row);
      } else {
        BitVectorHelper.setBit(validity, row);
        int s = srcOffsets.getInt(4L * r);
        int len = srcOffsets.getInt(4L * r + 4) - s;
        MemoryUtil.copyMemory(srcData + s, to + at, len);
        at += len;
      }
      dstOffsets.setInt(4L * (row + 1), at);
    }
    dst.setLastSet(end - 1);
  }

  private static void checkRows(ValueVector src, int[] rows, int count) {
    int n = src.getValueCount();
    for (int k = 0; k < count; k++) {
      if (rows[k] < 0 || rows[k] >= n) {
        throw new IndexOutOfBoundsException("row " + rows[k] + " outside [0, " + n + ") of " + src.getName());
      }
    }
  }
}
