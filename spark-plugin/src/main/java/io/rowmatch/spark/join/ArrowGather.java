package io.rowmatch.spark.join;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * Gathers rows of one Arrow column into a fresh vector by reading and writing the buffers by address: for
 * fixed-width columns one load and one store per value, for variable-width columns one bulk byte copy per
 * value after sizing the data buffer exactly. Row index -1 is a null. Other layouts return false and the
 * caller copies value by value with copyFromSafe.
 *
 * <p>Every buffer capacity is checked once per call (and each variable-width value's offsets once), so the
 * loops read and write by address without Arrow's per-access bounds checks. The output validity is built
 * one 64-row word at a time in a register and stored byte by byte, instead of a read-modify-write per row.
 */
public final class ArrowGather {
  private ArrowGather() {}

  /**
   * Allocates {@code dst} for {@code count} rows and fills it; false (nothing allocated) when not handled.
   * {@code starts}/{@code lengths}: scratch of at least {@code count} entries (the variable-width path keeps
   * each value's position from its sizing pass, so the copy pass reads no offsets again).
   */
  public static boolean gather(ValueVector src, int[] rows, FieldVector dst, int count, int[] starts, int[] lengths) {
    if (src instanceof BaseFixedWidthVector s && !(src instanceof BitVector) && dst instanceof BaseFixedWidthVector d
        && src.getClass() == dst.getClass() && s.getTypeWidth() == d.getTypeWidth() && fixedBuffersCover(s)) {
      checkRows(rows, count, s.getValueCount());
      d.allocateNew(Math.max(count, 1));
      fixed(s, rows, d, count);
      return true;
    }
    if (src instanceof BaseVariableWidthVector s && dst instanceof BaseVariableWidthVector d
        && src.getClass() == dst.getClass() && variableBuffersCover(s)) {
      checkRows(rows, count, s.getValueCount());
      variable(s, rows, d, count, starts, lengths);
      return true;
    }
    return false;
  }

  /** The raw path reads validity and data by address: both buffers must hold every value. */
  private static boolean fixedBuffersCover(BaseFixedWidthVector s) {
    long n = s.getValueCount();
    return s.getValidityBuffer().capacity() * 8 >= n && s.getDataBuffer().capacity() >= n * s.getTypeWidth();
  }

  private static boolean variableBuffersCover(BaseVariableWidthVector s) {
    long n = s.getValueCount();
    return s.getValidityBuffer().capacity() * 8 >= n && (n == 0 || s.getOffsetBuffer().capacity() >= 4 * (n + 1));
  }

  private static void checkRows(int[] rows, int count, int srcCount) {
    for (int i = 0; i < count; i++) {
      if (rows[i] >= srcCount) {
        throw new IndexOutOfBoundsException("row " + rows[i] + " outside a column of " + srcCount + " values");
      }
    }
  }

  private static boolean isSet(long bitmap, int i) {
    return (MemoryUtil.getByte(bitmap + (i >>> 3)) & (1 << (i & 7))) != 0;
  }

  /** Stores the validity bits of output rows [base, base + n), n <= 64, held in {@code word} (bit k = row base + k). */
  private static void storeValidity(long bitmap, int base, long word, int n) {
    long at = bitmap + (base >>> 3);
    for (int b = 0; b < n; b += 8) {
      MemoryUtil.putByte(at + (b >>> 3), (byte) (word >>> b));
    }
  }

  private static void fixed(BaseFixedWidthVector s, int[] rows, BaseFixedWidthVector d, int count) {
    // Rows are checked against the source's value count, its buffers cover that count, and d holds count values:
    // the reads and writes below stay inside both vectors' buffers.
    long sv = s.getValidityBufferAddress();
    long sd = s.getDataBufferAddress();
    long dv = d.getValidityBufferAddress();
    long dd = d.getDataBufferAddress();
    int w = s.getTypeWidth();
    for (int base = 0; base < count; base += 64) {
      int end = Math.min(count, base + 64);
      long word = 0;
      switch (w) {
        case 8 -> {
          for (int i = base; i < end; i++) {
            int r = rows[i];
            if (r >= 0 && isSet(sv, r)) {
              word |= 1L << (i - base);
              MemoryUtil.putLong(dd + 8L * i, MemoryUtil.getLong(sd + 8L * r));
            }
          }
        }
        case 4 -> {
          for (int i = base; i < end; i++) {
            int r = rows[i];
            if (r >= 0 && isSet(sv, r)) {
              word |= 1L << (i - base);
              MemoryUtil.putInt(dd + 4L * i, MemoryUtil.getInt(sd + 4L * r));
            }
          }
        }
        default -> {
          for (int i = base; i < end; i++) {
            int r = rows[i];
            if (r >= 0 && isSet(sv, r)) {
              word |= 1L << (i - base);
              MemoryUtil.copyMemory(sd + (long) w * r, dd + (long) w * i, w);
            }
          }
        }
      }
      storeValidity(dv, base, word, end - base);
    }
  }

  private static void variable(BaseVariableWidthVector s, int[] rows, BaseVariableWidthVector d, int count,
      int[] starts, int[] lengths) {
    long sv = s.getValidityBufferAddress();
    long so = s.getOffsetBufferAddress();
    long sd = s.getDataBufferAddress();
    long dataCapacity = s.getDataBuffer().capacity();
    // Sizing pass: each kept value's offsets read once and checked against the data buffer; -1 length = null.
    long total = 0;
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      if (r >= 0 && isSet(sv, r)) {
        int start = MemoryUtil.getInt(so + 4L * r);
        int end = MemoryUtil.getInt(so + 4L * r + 4);
        if (start < 0 || start > end || end > dataCapacity) {
          throw new IllegalStateException("malformed string column '" + s.getName() + "': row " + r
              + " has offsets [" + start + ", " + end + ") outside its data buffer of " + dataCapacity + " bytes");
        }
        starts[i] = start;
        lengths[i] = end - start;
        total += end - start;
      } else {
        lengths[i] = -1;
      }
    }
    if (total > Integer.MAX_VALUE) {
      throw new IllegalStateException("a join output batch would hold " + total + " bytes in one string column;"
          + " lower spark.rowmatch.batchSize");
    }
    d.allocateNew(Math.max(total, 1), Math.max(count, 1));
    // d holds count + 1 offsets and total data bytes; the values checked above fit in it exactly.
    long dv = d.getValidityBufferAddress();
    long dof = d.getOffsetBufferAddress();
    long dd = d.getDataBufferAddress();
    int at = 0;
    MemoryUtil.putInt(dof, 0);
    for (int base = 0; base < count; base += 64) {
      int end = Math.min(count, base + 64);
      long word = 0;
      for (int i = base; i < end; i++) {
        int len = lengths[i];
        if (len >= 0) {
          word |= 1L << (i - base);
          MemoryUtil.copyMemory(sd + starts[i], dd + at, len);
          at += len;
        }
        MemoryUtil.putInt(dof + 4L * (i + 1), at);
      }
      storeValidity(dv, base, word, end - base);
    }
    d.setLastSet(count - 1);
  }
}
