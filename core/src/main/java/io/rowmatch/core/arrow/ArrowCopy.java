package io.rowmatch.core.arrow;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.MalformedVectorException;

/**
 * Copies chosen rows of one Arrow column into another of the same type, in two shapes: {@link #gather} fills
 * a fresh vector ({@code dst[i] = src[rows[i]]}, row -1 a null), {@link #append} writes after the values a
 * growing vector already holds ({@code dst[start + i] = src[rows[i]]}). Every type is copied: fixed-width
 * columns (booleans aside) and 32-bit-offset variable-width columns (strings, binaries) by reading and
 * writing their buffers by address, everything else value by value with Arrow's {@code copyFromSafe}.
 *
 * <p>Safety without per-value cost: row indices are checked once per call (for every path), and on the
 * by-address paths the source's buffers are checked once against its value count and each variable-width
 * value's offsets against its data buffer, before anything is read; a malformed source fails with a
 * {@link MalformedVectorException} naming the column. The destination grows once per call.
 *
 * <p>The value-by-value path holds the source's monitor: {@code copyFromSafe} of nested vectors reads through
 * the source's one cached reader, shared state when several threads read one vector (a broadcast table).
 */
public final class ArrowCopy {
  private ArrowCopy() {}

  /**
   * A caller's scratch, kept between calls: the variable-width paths remember each value's position from their
   * sizing pass, so the copy pass reads no offsets again. Grows to the largest call; not thread-safe.
   */
  public static final class Scratch {
    private int[] starts = new int[0];
    private int[] lengths = new int[0];

    void ensure(int count) {
      if (starts.length < count) {
        starts = new int[count];
        lengths = new int[count];
      }
    }
  }

  /**
   * Allocates {@code dst} (a fresh vector of src's type) for {@code count} rows, fills row i with
   * {@code src[rows[i]]} or a null where {@code rows[i] < 0}, and sets its value count. Returns whether a
   * by-address path did the copy (false: value by value).
   *
   * @throws IndexOutOfBoundsException when a row is at or past src's value count
   * @throws MalformedVectorException when src's buffers or offsets contradict its value count
   */
  public static boolean gather(ValueVector src, int[] rows, int count, FieldVector dst, Scratch scratch) {
    checkRows(src, rows, count, true);
    boolean direct;
    if (sameFixedWidth(src, dst)) {
      BaseFixedWidthVector s = (BaseFixedWidthVector) src;
      BaseFixedWidthVector d = (BaseFixedWidthVector) dst;
      checkFixedBuffers(s);
      d.allocateNew(Math.max(count, 1));
      gatherFixed(s, rows, d, count);
      direct = true;
    } else if (src instanceof BaseVariableWidthVector s && dst instanceof BaseVariableWidthVector d
        && src.getClass() == dst.getClass()) {
      checkVariableBuffers(s);
      scratch.ensure(count);
      gatherVariable(s, rows, d, count, scratch.starts, scratch.lengths);
      direct = true;
    } else {
      dst.setInitialCapacity(Math.max(count, 1));
      dst.allocateNew();
      synchronized (src) {
        for (int i = 0; i < count; i++) {
          int r = rows[i];
          if (r >= 0) { // a fresh vector starts all-null; variable-width holes are filled by setValueCount
            dst.copyFromSafe(r, i, src);
          }
        }
      }
      direct = false;
    }
    dst.setValueCount(count);
    return direct;
  }

  /**
   * Writes {@code src[rows[i]]} at {@code dst[dstStart + i]} for i in [0, count), growing dst as needed; dst
   * holds exactly {@code dstStart} values before (written in order, as variable-width vectors need). Does not
   * set dst's value count (the caller does, once its appends are done). Returns whether a by-address path did
   * the copy (false: value by value).
   *
   * @throws IndexOutOfBoundsException when a row is negative or at or past src's value count
   * @throws MalformedVectorException when src's buffers or offsets contradict its value count
   */
  public static boolean append(ValueVector src, int[] rows, int count, FieldVector dst, int dstStart,
      Scratch scratch) {
    if (count == 0) {
      return true;
    }
    checkRows(src, rows, count, false);
    if (sameFixedWidth(src, dst)) {
      BaseFixedWidthVector s = (BaseFixedWidthVector) src;
      BaseFixedWidthVector d = (BaseFixedWidthVector) dst;
      checkAndGrow(s, d, dstStart + count);
      appendFixed(s, rows, count, d, dstStart);
      return true;
    }
    // The by-address path writes offset dstStart onwards: the values before it must be final.
    if (src instanceof BaseVariableWidthVector s && dst instanceof BaseVariableWidthVector d
        && src.getClass() == dst.getClass() && d.getLastSet() == dstStart - 1) {
      checkVariableBuffers(s);
      scratch.ensure(count);
      appendVariable(s, rows, count, d, dstStart, scratch.starts, scratch.lengths);
      return true;
    }
    synchronized (src) {
      for (int i = 0; i < count; i++) {
        dst.copyFromSafe(rows[i], dstStart + i, src);
      }
    }
    return false;
  }

  /**
   * {@link #append} of src's first {@code count} rows in order (a chunk gathered on its own, added to a batch being
   * coalesced): fixed- and variable-width values copied in one block each and the validity a word at a time,
   * instead of value by value. Same contract as {@link #append}.
   *
   * @throws IndexOutOfBoundsException when count exceeds src's value count
   * @throws MalformedVectorException when src's buffers or offsets contradict its value count
   */
  public static boolean appendAll(ValueVector src, int count, FieldVector dst, int dstStart, Scratch scratch) {
    if (count == 0) {
      return true;
    }
    if (count < 0 || count > src.getValueCount()) {
      throw new IndexOutOfBoundsException("rows [0, " + count + ") outside [0, " + src.getValueCount()
          + ") of column '" + src.getName() + "'");
    }
    if (sameFixedWidth(src, dst)) {
      BaseFixedWidthVector s = (BaseFixedWidthVector) src;
      BaseFixedWidthVector d = (BaseFixedWidthVector) dst;
      checkAndGrow(s, d, dstStart + count);
      // src's buffers hold its values (checked), d has room for dstStart + count: both ranges are inside.
      long w = s.getTypeWidth();
      MemoryUtil.copyMemory(s.getDataBufferAddress(), d.getDataBufferAddress() + w * dstStart, w * count);
      copyBits(s.getValidityBufferAddress(), count, d.getValidityBufferAddress(), dstStart);
      return true;
    }
    if (src instanceof BaseVariableWidthVector s && dst instanceof BaseVariableWidthVector d
        && src.getClass() == dst.getClass() && d.getLastSet() == dstStart - 1) {
      checkVariableBuffers(s);
      appendVariableAll(s, count, d, dstStart);
      return true;
    }
    int[] rows = new int[count];
    for (int i = 0; i < count; i++) {
      rows[i] = i;
    }
    return append(src, rows, count, dst, dstStart, scratch);
  }

  /** The fixed-width appends' setup: src's buffers checked against its values, d grown to hold {@code values}. */
  private static void checkAndGrow(BaseFixedWidthVector s, BaseFixedWidthVector d, int values) {
    checkFixedBuffers(s);
    while (d.getValueCapacity() < values) {
      d.reAlloc();
    }
  }

  private static boolean sameFixedWidth(ValueVector src, ValueVector dst) {
    return src instanceof BaseFixedWidthVector s && !(src instanceof BitVector) && dst instanceof BaseFixedWidthVector d
        && src.getClass() == dst.getClass() && s.getTypeWidth() == d.getTypeWidth();
  }

  /** The one row-index check: every row inside src's values ({@code nullRows}: negative rows mean null). */
  private static void checkRows(ValueVector src, int[] rows, int count, boolean nullRows) {
    checkRows(rows, count, src.getValueCount(), nullRows, src.getName());
  }

  /**
   * The row-index check of every gather by row numbers: {@code rows[0..count)} inside [0, n) ({@code nullRows}:
   * negative rows mean null and pass); else IndexOutOfBoundsException naming the row and the column.
   */
  public static void checkRows(int[] rows, int count, int n, boolean nullRows, String column) {
    // Branch-free: one OR of every row's sign bits (r >= n, and r < 0 unless null rows are allowed), so the loop
    // vectorizes; a join appends each chunk's rows column after column, and this check ran once per value.
    int bad = 0;
    if (nullRows) {
      for (int i = 0; i < count; i++) {
        int r = rows[i];
        bad |= (n - 1 - r) & ~r; // r >= n (a negative r is null: its own sign bit cancels)
      }
    } else {
      for (int i = 0; i < count; i++) {
        int r = rows[i];
        bad |= (n - 1 - r) | r;
      }
    }
    if (bad < 0) {
      for (int i = 0; i < count; i++) {
        int r = rows[i];
        if ((r < 0 && !nullRows) || r >= n) {
          throw new IndexOutOfBoundsException("row " + r + " outside [0, " + n + ") of column '" + column + "'");
        }
      }
    }
  }

  /**
   * Bytes of a bitmap (validity, or a boolean column's data) holding {@code rows} bits. Ours because Arrow renamed
   * its helper between the versions Spark 4.1 and 4.2 ship (getValidityBufferSize, then ...FromCount).
   */
  public static int validityBytes(int rows) {
    return (int) (((long) rows + 7) >>> 3);
  }

  private static MalformedVectorException malformed(ValueVector v, String what) {
    return new MalformedVectorException("column '" + v.getName() + "' is malformed: " + what);
  }

  /** The by-address reads go by address: validity and data must hold every one of src's values. */
  private static void checkFixedBuffers(BaseFixedWidthVector s) {
    long n = s.getValueCount();
    if (s.getValidityBuffer().capacity() < validityBytes((int) n)
        || s.getDataBuffer().capacity() < n * s.getTypeWidth()) {
      throw malformed(s, "buffers shorter than its " + n + " values");
    }
  }

  /** Validity and offsets must hold every one of src's values (each value's data is checked as it is sized). */
  private static void checkVariableBuffers(BaseVariableWidthVector s) {
    long n = s.getValueCount();
    if (s.getValidityBuffer().capacity() < validityBytes((int) n)
        || (n > 0 && s.getOffsetBuffer().capacity() < 4 * (n + 1))) {
      throw malformed(s, "buffers shorter than its " + n + " values");
    }
  }

  private static MalformedVectorException badOffsets(ValueVector s, int row, int start, int end, long capacity) {
    return malformed(s, "row " + row + " has offsets [" + start + ", " + end + ") outside its data buffer of "
        + capacity + " bytes or decreasing");
  }

  private static IllegalStateException tooManyBytes(ValueVector v, long bytes) {
    return new IllegalStateException("column '" + v.getName() + "' would hold " + bytes + " bytes of values, more"
        + " than an Arrow column with 32-bit offsets can (2 GiB); copy fewer rows at a time");
  }

  private static boolean isSet(long bitmap, int i) {
    return (MemoryUtil.getByte(bitmap + (i >>> 3)) & (1 << (i & 7))) != 0;
  }

  /**
   * Stores {@code n} bits (1..64; {@code word}'s bits from n up are zero) at bit {@code pos} of a bitmap: the bits
   * below pos are kept, the rest of the last byte written is cleared (appends write in order, so a later append
   * writes it again). Touches only the bytes holding bits [pos, pos + n).
   */
  private static void putBits(long bitmap, int pos, long word, int n) {
    long at = bitmap + (pos >>> 3);
    int shift = pos & 7;
    int bytes = ((pos + n - 1) >>> 3) - (pos >>> 3) + 1;
    MemoryUtil.putByte(at, (byte) ((MemoryUtil.getByte(at) & ((1 << shift) - 1)) | (word << shift)));
    for (int k = 1; k < bytes; k++) { // byte k holds word's bits from 8k - shift (in 1..63: k <= 8, shift >= 1 at 8)
      MemoryUtil.putByte(at + k, (byte) (word >>> (8 * k - shift)));
    }
  }

  /** Bits [from, from + n) of a bitmap (from a multiple of 64, n in 1..64) as a word, the bits from n up zero. */
  private static long getBits(long bitmap, int from, int n) {
    long at = bitmap + (from >>> 3);
    if (n == 64) {
      return MemoryUtil.getLong(at);
    }
    long word = 0;
    for (int b = 0; b < (n + 7) >>> 3; b++) { // only the bytes that hold the n bits: the buffer may end there
      word |= (MemoryUtil.getByte(at + b) & 0xFFL) << (8 * b);
    }
    return word & ((1L << n) - 1);
  }

  /** Bits [0, count) of one bitmap written at bit {@code dstStart} of another, a word at a time. */
  private static void copyBits(long src, int count, long dst, int dstStart) {
    for (int base = 0; base < count; base += 64) {
      int n = Math.min(64, count - base);
      putBits(dst, dstStart + base, getBits(src, base, n), n);
    }
  }

  /** Stores the validity bits of output rows [base, base + n), n <= 64, held in {@code word} (bit k = row base + k). */
  private static void storeValidity(long bitmap, int base, long word, int n) {
    long at = bitmap + (base >>> 3);
    for (int b = 0; b < n; b += 8) {
      MemoryUtil.putByte(at + (b >>> 3), (byte) (word >>> b));
    }
  }

  /**
   * Gather, fixed width: one load and one store per value; the output validity is built one 64-row word at a
   * time in a register and stored byte by byte, instead of a read-modify-write per row.
   */
  private static void gatherFixed(BaseFixedWidthVector s, int[] rows, BaseFixedWidthVector d, int count) {
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

  /**
   * The sizing pass of both variable-width paths: each copied value's offsets read once (rows checked, offset
   * buffer checked against the value count) and checked against the data buffer; its start and length kept in
   * the scratch (-1 length: a null, or row -1). Returns the bytes to copy.
   */
  private static long sizeValues(BaseVariableWidthVector s, int[] rows, int count, int[] starts, int[] lengths) {
    long sv = s.getValidityBufferAddress();
    long so = s.getOffsetBufferAddress();
    long dataCapacity = s.getDataBuffer().capacity();
    long total = 0;
    for (int i = 0; i < count; i++) {
      int r = rows[i];
      if (r >= 0 && isSet(sv, r)) {
        int start = MemoryUtil.getInt(so + 4L * r);
        int end = MemoryUtil.getInt(so + 4L * r + 4);
        if (start < 0 || start > end || end > dataCapacity) {
          throw badOffsets(s, r, start, end, dataCapacity);
        }
        starts[i] = start;
        lengths[i] = end - start;
        total += end - start;
      } else {
        lengths[i] = -1;
      }
    }
    return total;
  }

  /** Gather, variable width: the sizing pass, an exact allocation, one copy per value. */
  private static void gatherVariable(BaseVariableWidthVector s, int[] rows, BaseVariableWidthVector d, int count,
      int[] starts, int[] lengths) {
    long total = sizeValues(s, rows, count, starts, lengths);
    long sd = s.getDataBufferAddress();
    if (total > Integer.MAX_VALUE) {
      throw tooManyBytes(d, total);
    }
    d.allocateNew(Math.max(total, 1), Math.max(count, 1));
    // d holds count + 1 offsets and total data bytes; the values checked above fit in it exactly.
    copySized(sd, count, starts, lengths, d, 0, 0);
  }

  /**
   * The copy pass of both variable-width paths: the sized values (a -1 length: null) written from data byte
   * {@code at} of d on, as its values dstStart onwards, offsets and validity (a word at a time) with them. d must
   * hold dstStart + count values and at + the values' bytes.
   */
  private static void copySized(long sd, int count, int[] starts, int[] lengths, BaseVariableWidthVector d,
      int dstStart, long at) {
    long dv = d.getValidityBufferAddress();
    long dof = d.getOffsetBufferAddress();
    long dd = d.getDataBufferAddress();
    MemoryUtil.putInt(dof + 4L * dstStart, (int) at);
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
        MemoryUtil.putInt(dof + 4L * (dstStart + i + 1), (int) at);
      }
      putBits(dv, dstStart + base, word, end - base);
    }
    d.setLastSet(dstStart + count - 1);
  }

  /** Append, fixed width: one load and one store per value (a bulk copy for widths other than 4, 8 and 16). */
  private static void appendFixed(BaseFixedWidthVector s, int[] rows, int count, BaseFixedWidthVector d,
      int dstStart) {
    // Rows are checked against the source's value count and its buffers against that count; d has capacity
    // for dstStart + count values: every raw access below is inside a buffer.
    long sv = s.getValidityBufferAddress();
    long sd = s.getDataBufferAddress();
    long dv = d.getValidityBufferAddress();
    long dd = d.getDataBufferAddress();
    int w = s.getTypeWidth();
    for (int base = 0; base < count; base += 64) {
      int end = Math.min(count, base + 64);
      long word = 0; // the validity of rows [base, end), stored once (a read-modify-write per row cost as much)
      for (int i = base; i < end; i++) {
        int r = rows[i];
        if (!isSet(sv, r)) {
          continue;
        }
        word |= 1L << (i - base);
        int at = dstStart + i;
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
      putBits(dv, dstStart + base, word, end - base);
    }
  }

  /** Append of rows [0, count) in order, variable width: offsets checked and rebased, the data one block. */
  private static void appendVariableAll(BaseVariableWidthVector s, int count, BaseVariableWidthVector d,
      int dstStart) {
    long so = s.getOffsetBufferAddress();
    long dataCapacity = s.getDataBuffer().capacity();
    int first = MemoryUtil.getInt(so);
    int prev = first;
    int bad = first; // sign bit: a negative offset or a decrease (no overflow once both are >= 0); vectorizes
    for (int i = 1; i <= count; i++) {
      int o = MemoryUtil.getInt(so + 4L * i);
      bad |= o | (o - prev);
      prev = o;
    }
    int last = prev;
    if (bad < 0 || last > dataCapacity) {
      for (int i = 0; i < count; i++) {
        int start = MemoryUtil.getInt(so + 4L * i);
        int end = MemoryUtil.getInt(so + 4L * i + 4);
        if (start < 0 || start > end || end > dataCapacity) {
          throw badOffsets(s, i, start, end, dataCapacity);
        }
      }
    }
    long at = growForAppend(d, dstStart, count, last - first);
    // d holds dstStart + count values and at + (last - first) data bytes; src's offsets were checked above.
    long dof = d.getOffsetBufferAddress();
    MemoryUtil.copyMemory(s.getDataBufferAddress() + first, d.getDataBufferAddress() + at, last - first);
    int delta = (int) (at - first);
    for (int i = 0; i <= count; i++) {
      MemoryUtil.putInt(dof + 4L * (dstStart + i), MemoryUtil.getInt(so + 4L * i) + delta);
    }
    copyBits(s.getValidityBufferAddress(), count, d.getValidityBufferAddress(), dstStart);
    d.setLastSet(dstStart + count - 1);
  }

  /**
   * Grows d to hold {@code dstStart + count} values and {@code bytes} more data bytes after its first dstStart
   * values; returns where their data starts (offsets up to dstStart are final, lastSet = dstStart - 1, and offset 0
   * of an empty vector is 0).
   */
  private static long growForAppend(BaseVariableWidthVector d, int dstStart, int count, long bytes) {
    if (d.getValueCapacity() == 0) {
      d.allocateNew();
    }
    while (d.getValueCapacity() < dstStart + count) {
      d.reallocValidityAndOffsetBuffers();
    }
    long at = dstStart == 0 ? 0 : d.getOffsetBuffer().getInt((long) dstStart * 4);
    long needed = at + bytes;
    if (needed > Integer.MAX_VALUE) {
      throw tooManyBytes(d, needed);
    }
    long capacity = d.getDataBuffer().capacity();
    if (capacity < needed) {
      d.reallocDataBuffer(Math.max(needed, 2 * capacity));
    }
    return at;
  }

  /** Append, variable width: the sizing pass, one growth, one copy per value. */
  private static void appendVariable(BaseVariableWidthVector s, int[] rows, int count, BaseVariableWidthVector d,
      int dstStart, int[] starts, int[] lengths) {
    long total = sizeValues(s, rows, count, starts, lengths);
    long sd = s.getDataBufferAddress();
    long at = growForAppend(d, dstStart, count, total);
    // d holds dstStart + count values and at + total data bytes; the values sized above fit in it.
    copySized(sd, count, starts, lengths, d, dstStart, at);
  }

}
