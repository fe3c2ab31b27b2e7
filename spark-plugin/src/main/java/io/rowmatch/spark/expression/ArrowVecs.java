package io.rowmatch.spark.expression;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.unsafe.Platform;

import io.rowmatch.core.arrow.ArrowCopy;
import io.rowmatch.spark.arrow.ArrowSchemas;

/**
 * Arrow vectors (Spark's mapping, ArrowUtils) into {@link Vec}s and back: one pass per buffer, validity a word at
 * a time.
 */
final class ArrowVecs {
  private ArrowVecs() {}

  /** Reads stay inside the buffer: checked once per column here, then by address (as the core's kernels). */
  private static long checked(ArrowBuf b, long bytes, DataType type) {
    if (b.capacity() < bytes) {
      throw new IllegalStateException("a " + type.simpleString() + " column's buffer holds " + b.capacity()
          + " bytes, fewer than its values need (" + bytes + ")");
    }
    return b.memoryAddress();
  }

  /** Rows 0..rows of an Arrow vector; numeric arrays from {@code scratch} (null: new ones). */
  static Vec read(ValueVector v, DataType type, int rows, VecScratch scratch) {
    if (v.getValueCount() < rows) {
      throw new IllegalStateException("column of " + v.getValueCount() + " values in a batch of " + rows + " rows");
    }
    Vec out = new Vec(type, rows);
    if (v instanceof NullVector) {
      out.valid = new long[Vec.words(rows)];
      return out;
    }
    out.valid = v.getNullCount() == 0 ? null : readBits(v.getValidityBuffer(), rows);
    switch (out.kind) {
      case Vec.BOOL -> out.bits = readBits(((BitVector) v).getDataBuffer(), rows);
      case Vec.LONG -> {
        long[] l = scratch == null ? new long[rows] : scratch.longs(rows);
        ArrowBuf b = v.getDataBuffer();
        if (v instanceof BigIntVector || v instanceof TimeStampMicroTZVector || v instanceof TimeStampMicroVector) {
          long addr = checked(b, (long) rows << 3, type);
          for (int i = 0; i < rows; i++) {
            l[i] = Platform.getLong(null, addr + ((long) i << 3));
          }
        } else if (v instanceof IntVector || v instanceof DateDayVector) {
          long addr = checked(b, (long) rows << 2, type);
          for (int i = 0; i < rows; i++) {
            l[i] = Platform.getInt(null, addr + ((long) i << 2));
          }
        } else if (v instanceof SmallIntVector) {
          for (int i = 0; i < rows; i++) {
            l[i] = b.getShort((long) i << 1);
          }
        } else if (v instanceof TinyIntVector) {
          for (int i = 0; i < rows; i++) {
            l[i] = b.getByte(i);
          }
        } else {
          throw unexpected(v, type);
        }
        out.longs = l;
      }
      case Vec.DOUBLE -> {
        double[] d = scratch == null ? new double[rows] : scratch.doubles(rows);
        ArrowBuf b = v.getDataBuffer();
        if (v instanceof Float8Vector) {
          long addr = checked(b, (long) rows << 3, type);
          for (int i = 0; i < rows; i++) {
            d[i] = Platform.getDouble(null, addr + ((long) i << 3));
          }
        } else if (v instanceof Float4Vector) {
          for (int i = 0; i < rows; i++) {
            d[i] = b.getFloat((long) i << 2);
          }
        } else {
          throw unexpected(v, type);
        }
        out.doubles = d;
      }
      case Vec.DECIMAL -> {
        if (!(v instanceof DecimalVector)) {
          throw unexpected(v, type);
        }
        long addr = checked(v.getDataBuffer(), (long) rows << 4, type);
        long[] lo = scratch == null ? new long[rows] : scratch.longs(rows);
        for (int i = 0; i < rows; i++) {
          lo[i] = Platform.getLong(null, addr + ((long) i << 4));
        }
        out.longs = lo;
        if (Vec.wide(type)) {
          long[] hi = scratch == null ? new long[rows] : scratch.longs(rows);
          for (int i = 0; i < rows; i++) {
            hi[i] = Platform.getLong(null, addr + ((long) i << 4) + 8);
          }
          out.his = hi;
        }
      }
      case Vec.BYTES -> {
        if (!(v instanceof VarCharVector || v instanceof VarBinaryVector)) {
          throw unexpected(v, type);
        }
        BaseVariableWidthVector vw = (BaseVariableWidthVector) v;
        ArrowBuf offsets = vw.getOffsetBuffer();
        int[] starts = new int[rows];
        int[] lens = new int[rows];
        long at = rows == 0 ? 0 : checked(offsets, (long) (rows + 1) << 2, type);
        int first = rows == 0 ? 0 : Platform.getInt(null, at);
        int prev = first;
        int decreasing = 0;
        for (int i = 0; i < rows; i++) {
          int end = Platform.getInt(null, at + ((long) (i + 1) << 2));
          decreasing |= end - prev;
          starts[i] = prev - first;
          lens[i] = end - prev;
          prev = end;
        }
        if (decreasing < 0) {
          throw new IllegalStateException("decreasing offsets in a " + type.simpleString() + " column");
        }
        byte[] data = new byte[prev - first + Vec.BYTES_PAD];
        vw.getDataBuffer().getBytes(first, data, 0, prev - first);
        out.data = data;
        out.starts = starts;
        out.lens = lens;
      }
      default -> throw unexpected(v, type);
    }
    return out;
  }

  /**
   * Rows {@code sel[0..n)} of an Arrow vector (in any order, repeats allowed), as {@link #read} would give them:
   * for a conjunct only the rows still true need, or a join condition over the matched pairs.
   */
  static Vec readSelected(ValueVector v, DataType type, int[] sel, int n) {
    return readSelected(v, type, sel, n, null);
  }

  static Vec readSelected(ValueVector v, DataType type, int[] sel, int n, VecScratch scratch) {
    int count = v.getValueCount();
    checkRows(sel, n, count);
    Vec out = new Vec(type, n);
    if (v instanceof NullVector) {
      out.valid = new long[Vec.words(n)];
      return out;
    }
    out.valid = selectedValidity(v, sel, n);
    switch (out.kind) {
      case Vec.BOOL -> out.bits = gatherBits(((BitVector) v).getDataBuffer(), sel, n);
      case Vec.LONG -> {
        long[] l = scratch == null ? new long[n] : scratch.longs(n);
        ArrowBuf b = v.getDataBuffer();
        if (v instanceof BigIntVector || v instanceof TimeStampMicroTZVector || v instanceof TimeStampMicroVector) {
          long addr = checked(b, (long) count << 3, type);
          for (int i = 0; i < n; i++) {
            l[i] = Platform.getLong(null, addr + ((long) sel[i] << 3));
          }
        } else if (v instanceof IntVector || v instanceof DateDayVector) {
          long addr = checked(b, (long) count << 2, type);
          for (int i = 0; i < n; i++) {
            l[i] = Platform.getInt(null, addr + ((long) sel[i] << 2));
          }
        } else if (v instanceof SmallIntVector) {
          for (int i = 0; i < n; i++) {
            l[i] = b.getShort((long) sel[i] << 1);
          }
        } else if (v instanceof TinyIntVector) {
          for (int i = 0; i < n; i++) {
            l[i] = b.getByte(sel[i]);
          }
        } else {
          throw unexpected(v, type);
        }
        out.longs = l;
      }
      case Vec.DOUBLE -> {
        double[] d = scratch == null ? new double[n] : scratch.doubles(n);
        ArrowBuf b = v.getDataBuffer();
        if (v instanceof Float8Vector) {
          long addr = checked(b, (long) count << 3, type);
          for (int i = 0; i < n; i++) {
            d[i] = Platform.getDouble(null, addr + ((long) sel[i] << 3));
          }
        } else if (v instanceof Float4Vector) {
          for (int i = 0; i < n; i++) {
            d[i] = b.getFloat((long) sel[i] << 2);
          }
        } else {
          throw unexpected(v, type);
        }
        out.doubles = d;
      }
      case Vec.DECIMAL -> {
        if (!(v instanceof DecimalVector)) {
          throw unexpected(v, type);
        }
        long addr = checked(v.getDataBuffer(), (long) count << 4, type);
        long[] lo = scratch == null ? new long[n] : scratch.longs(n);
        for (int i = 0; i < n; i++) {
          lo[i] = Platform.getLong(null, addr + ((long) sel[i] << 4));
        }
        out.longs = lo;
        if (Vec.wide(type)) {
          long[] hi = scratch == null ? new long[n] : scratch.longs(n);
          for (int i = 0; i < n; i++) {
            hi[i] = Platform.getLong(null, addr + ((long) sel[i] << 4) + 8);
          }
          out.his = hi;
        }
      }
      case Vec.BYTES -> {
        if (!(v instanceof VarCharVector || v instanceof VarBinaryVector)) {
          throw unexpected(v, type);
        }
        BaseVariableWidthVector vw = (BaseVariableWidthVector) v;
        ArrowBuf offsets = vw.getOffsetBuffer();
        int[] starts = new int[n];
        int[] lens = new int[n];
        long total = 0;
        long offsetsAt = n == 0 ? 0 : checked(offsets, (long) (count + 1) << 2, type);
        int bad = 0;
        int maxEnd = 0;
        for (int i = 0; i < n; i++) {
          int r = sel[i];
          int start = Platform.getInt(null, offsetsAt + ((long) r << 2));
          int end = Platform.getInt(null, offsetsAt + ((long) (r + 1) << 2));
          bad |= (end - start) | start;
          maxEnd = Math.max(maxEnd, end);
          starts[i] = start; // the Arrow offset for now, this Vec's own below
          lens[i] = end - start;
          total += end - start;
        }
        if (bad < 0) {
          throw new IllegalStateException("decreasing or negative offsets in a " + type.simpleString() + " column");
        }
        if (total > Integer.MAX_VALUE - Vec.BYTES_PAD) {
          throw new IllegalStateException("a batch's " + type.simpleString() + " column exceeds 2 GB");
        }
        byte[] data = new byte[(int) total + Vec.BYTES_PAD];
        long src = n == 0 ? 0 : checked(vw.getDataBuffer(), maxEnd, type);
        int at = 0;
        for (int i = 0; i < n; i++) {
          Platform.copyMemory(null, src + starts[i], data, Platform.BYTE_ARRAY_OFFSET + at, lens[i]);
          starts[i] = at;
          at += lens[i];
        }
        out.data = data;
        out.starts = starts;
        out.lens = lens;
      }
      default -> throw unexpected(v, type);
    }
    return out;
  }

  /** Every selected row is one of the vector's (the reads below are by address). */
  private static void checkRows(int[] sel, int n, int count) {
    ArrowCopy.checkRows(sel, n, count, false, "selected");
  }

  /** An Arrow vector's validity words for rows 0..n (sel null) or sel[0..n), null when it has no null. */
  static long[] readValidity(ValueVector v, int[] sel, int n) {
    int count = v.getValueCount();
    if (sel == null) {
      if (count < n) {
        throw new IllegalStateException("column of " + count + " values in a batch of " + n + " rows");
      }
    } else {
      checkRows(sel, n, count);
    }
    if (v instanceof NullVector) {
      return new long[Vec.words(n)];
    }
    if (sel != null) {
      return selectedValidity(v, sel, n);
    }
    return v.getNullCount() == 0 ? null : readBits(v.getValidityBuffer(), n);
  }

  /**
   * The validity words of rows {@code sel[0..n)} (checked inside the vector), null when all of them are valid.
   * Arrow's null count walks the whole bitmap: cheaper than n scattered bit reads while the vector has at most 64
   * values per selected row; past that (a few thousand pairs of a join condition against a large build column,
   * chunk after chunk) the selected bits alone decide.
   */
  private static long[] selectedValidity(ValueVector v, int[] sel, int n) {
    ArrowBuf buf = v.getValidityBuffer();
    if ((v.getValueCount() >>> 6) <= n || buf.capacity() < ArrowCopy.validityBytes(v.getValueCount())) {
      // (a bitmap short of the values is never one Arrow allocates or loads: Arrow's checked reads decide)
      return v.getNullCount() == 0 ? null : gatherBits(buf, sel, n);
    }
    long[] w = gatherBits(buf, sel, n);
    long all = -1L;
    int full = n >>> 6;
    for (int k = 0; k < full; k++) {
      all &= w[k];
    }
    int tail = n & 63;
    if (tail != 0) {
      all &= w[full] | (-1L << tail);
    }
    return all == -1L ? null : w;
  }

  /** Bits {@code sel[0..n)} of a bitmap buffer, as words. */
  private static long[] gatherBits(ArrowBuf buf, int[] sel, int n) {
    long[] w = new long[Vec.words(n)];
    for (int k = 0, base = 0; base < n; k++, base += 64) {
      int end = Math.min(64, n - base);
      long word = 0;
      for (int j = 0; j < end; j++) {
        int r = sel[base + j];
        word |= (long) ((buf.getByte(r >>> 3) >>> (r & 7)) & 1) << j;
      }
      w[k] = word;
    }
    return w;
  }

  private static IllegalStateException unexpected(ValueVector v, DataType type) {
    return new IllegalStateException("a " + type.simpleString() + " column in an Arrow "
        + v.getClass().getSimpleName());
  }

  /** A bitmap buffer's first {@code rows} bits as words, bits past the end cleared. */
  static long[] readBits(ArrowBuf buf, int rows) {
    long[] w = new long[Vec.words(rows)];
    int full = rows >>> 6;
    for (int i = 0; i < full; i++) {
      w[i] = buf.getLong((long) i << 3);
    }
    int tail = rows & 63;
    if (tail != 0) {
      long word = 0;
      int bytes = (tail + 7) >>> 3;
      for (int b = 0; b < bytes; b++) {
        word |= (buf.getByte(((long) full << 3) + b) & 0xFFL) << (8 * b);
      }
      w[full] = word & ((1L << tail) - 1);
    }
    return w;
  }

  private static void writeBits(ArrowBuf buf, long[] words, int rows) {
    int full = rows >>> 6;
    for (int i = 0; i < full; i++) {
      buf.setLong((long) i << 3, words[i]);
    }
    int tail = rows & 63;
    if (tail != 0) {
      long word = words[full] & ((1L << tail) - 1);
      int bytes = (tail + 7) >>> 3;
      for (int b = 0; b < bytes; b++) {
        buf.setByte(((long) full << 3) + b, (byte) (word >>> (8 * b)));
      }
    }
  }

  /** The vector as a new Arrow column of Spark's mapping for its type, from {@code allocator}. */
  static FieldVector write(Vec v, String name, boolean nullable, String timeZone, BufferAllocator allocator) {
    FieldVector out = ArrowSchemas.toArrow(name, v.type, nullable, timeZone).createVector(allocator);
    try {
      fill(v, out);
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
    return out;
  }

  /**
   * One small method per layout and width under a small dispatcher: each is compiled on its own, once, where one
   * method over every layout was recompiled by C2 each time a query brought a type it had not seen (nine times in
   * three TPC-H queries, the largest compile of the plugin).
   */
  private static void fill(Vec v, FieldVector out) {
    int rows = v.rows;
    if (out instanceof NullVector n) {
      n.setValueCount(rows);
      return;
    }
    if (!(out instanceof BaseFixedWidthVector f)) {
      fillVariable(v, (BaseVariableWidthVector) out, rows);
      return;
    }
    f.allocateNew(Math.max(rows, 1));
    ArrowBuf b = f.getDataBuffer();
    switch (v.kind) {
      case Vec.BOOL -> writeBits(b, v.bits, rows);
      case Vec.LONG -> {
        switch (f.getTypeWidth()) {
          case 8 -> putLongs(b, v.longs, rows);
          case 4 -> putInts(b, v.longs, rows);
          case 2 -> putShorts(b, v.longs, rows);
          case 1 -> putBytes(b, v.longs, rows);
          default -> throw cannotWrite(v, out);
        }
      }
      case Vec.DOUBLE -> {
        if (v.type instanceof FloatType) {
          putFloats(b, v.doubles, rows);
        } else {
          putDoubles(b, v.doubles, rows);
        }
      }
      case Vec.DECIMAL -> putDecimals(checked(b, (long) rows << 4, v.type), v.longs, v.his, rows);
      default -> throw cannotWrite(v, out);
    }
    writeBits(f.getValidityBuffer(), v.valid == null ? Vec.allValid(rows) : v.valid, rows);
    f.setValueCount(rows);
  }

  private static IllegalStateException cannotWrite(Vec v, FieldVector out) {
    return new IllegalStateException("cannot write " + v.type.simpleString() + " to " + out.getClass().getSimpleName());
  }

  private static void putLongs(ArrowBuf b, long[] l, int rows) {
    for (int i = 0; i < rows; i++) {
      b.setLong((long) i << 3, l[i]);
    }
  }

  private static void putInts(ArrowBuf b, long[] l, int rows) {
    for (int i = 0; i < rows; i++) {
      b.setInt((long) i << 2, (int) l[i]);
    }
  }

  private static void putShorts(ArrowBuf b, long[] l, int rows) {
    for (int i = 0; i < rows; i++) {
      b.setShort((long) i << 1, (short) l[i]);
    }
  }

  private static void putBytes(ArrowBuf b, long[] l, int rows) {
    for (int i = 0; i < rows; i++) {
      b.setByte(i, (byte) l[i]);
    }
  }

  private static void putFloats(ArrowBuf b, double[] d, int rows) {
    for (int i = 0; i < rows; i++) {
      b.setFloat((long) i << 2, (float) d[i]);
    }
  }

  private static void putDoubles(ArrowBuf b, double[] d, int rows) {
    for (int i = 0; i < rows; i++) {
      b.setDouble((long) i << 3, d[i]);
    }
  }

  /** 16-byte decimals at {@code addr} (checked to hold rows of them): the low word, and the high (or its sign). */
  private static void putDecimals(long addr, long[] lo, long[] hi, int rows) {
    for (int i = 0; i < rows; i++) {
      Platform.putLong(null, addr + ((long) i << 4), lo[i]);
      Platform.putLong(null, addr + ((long) i << 4) + 8, hi == null ? lo[i] >> 63 : hi[i]);
    }
  }

  private static void fillVariable(Vec v, BaseVariableWidthVector w, int rows) {
    long total = 0;
    for (int i = 0; i < rows; i++) {
      if (v.isValid(i)) {
        total += v.lens[i];
      }
    }
    if (total > Integer.MAX_VALUE) {
      throw new IllegalStateException("a batch's " + v.type.simpleString() + " column exceeds 2 GB");
    }
    w.allocateNew(Math.max(total, 1), Math.max(rows, 1));
    ArrowBuf offsets = w.getOffsetBuffer();
    ArrowBuf data = w.getDataBuffer();
    int end = 0;
    offsets.setInt(0, 0);
    for (int i = 0; i < rows; i++) {
      if (v.isValid(i)) {
        int len = v.lens[i];
        data.setBytes(end, v.data, v.starts[i], len);
        end += len;
      }
      offsets.setInt((long) (i + 1) << 2, end);
    }
    writeBits(w.getValidityBuffer(), v.valid == null ? Vec.allValid(rows) : v.valid, rows);
    w.setLastSet(rows - 1);
    w.setValueCount(rows);
  }
}
