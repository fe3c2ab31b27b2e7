package io.rowmatch.spark.join;

import org.apache.arrow.memory.ArrowBuf;
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
        && src.getClass() == dst.getClass() && s.getTypeWidth() == d.getTypeWidth()) {
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

  private static void checkRows(int[] rows, int count, int srcCount) {
    for (int i = 0; i < count; i++) {
      if (rows[i] >= srcCount) {
        throw new IndexOutOfBoundsException("row " + rows[i] + " outside a column of " + srcCount + " values");
      }
    }
  }

  private static void fixed(BaseFixedWidthVector s, int[] rows, BaseFixedWidthVector d, int count) {
    checkRows(rows, count, s.getValueCount());
    ArrowBuf sv = s.getValidityBuffer();
    ArrowBuf sd = s.getDataBuffer();
    ArrowBuf dv = d.getValidityBuffer();
    ArrowBuf dd = d.getDataBuffer();
    int w = s.getTypeWidth();
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      if (r < 0 || BitVectorHelper.get(sv, r) == 0) {
        continue; // fresh vectors are all null
      }
      BitVectorHelper.setBit(dv, i);
      switch (w) {
        case 8 -> dd.setLong((long) i * 8, sd.getLong((long) r * 8));
        case 4 -> dd.setInt((long) i * 4, sd.getInt((long) r * 4));
        case 2 -> dd.setShort((long) i * 2, sd.getShort((long) r * 2));
        case 1 -> dd.setByte(i, sd.getByte(r));
        default -> dd.setBytes((long) i * w, sd, (long) r * w, w);
      }
    }
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
