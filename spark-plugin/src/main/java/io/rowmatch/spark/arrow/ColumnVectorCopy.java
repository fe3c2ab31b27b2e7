package io.rowmatch.spark.arrow;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.execution.arrow.ArrowFieldWriter;
import org.apache.spark.sql.execution.arrow.ArrowWriter$;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;

/**
 * Copies one Spark column vector into one Arrow vector, batch after batch (the Arrow vector is reused).
 * The vectorized Parquet/ORC readers' OnHeap/OffHeapColumnVectors without a dictionary are copied in bulk
 * from their storage: one memory copy per fixed-width column, one per string value, nulls packed into a
 * bitmap. Dictionary-encoded strings and numbers are decoded once per dictionary entry ({@link DictionaryStrings},
 * {@link DictionaryNumbers}). Any other column vector (constant, Arrow, nested types, decimals of more than
 * 18 digits) is copied value by value through the ColumnVector API, which is exact for every type.
 */
final class ColumnVectorCopy {
  private final FieldVector dst;
  private final int kind;
  private final int precision;
  private final int scale;
  private ArrowFieldWriter nested;
  // Strings of the dictionary last seen, decoded once per id: Parquet's decodeToBinary copies each value.
  private final DictionaryStrings dictionaryStrings = new DictionaryStrings();
  // Numbers of the dictionary last seen, decoded once per id (null until a dictionary-encoded batch comes).
  private DictionaryNumbers dictionaryNumbers;

  // The Spark storage of the batch being copied: (base object, offset) as Platform reads it; a null base
  // with an absolute address for off-heap vectors, an array with its base offset for on-heap ones.
  private Object nullsBase;
  private long nullsAt;
  private Object dataBase;
  private long dataAt;
  private Object lengthsBase;
  private long lengthsAt;
  private Object offsetsBase;
  private long offsetsAt;
  private Object bytesBase;
  private long bytesAt;

  ColumnVectorCopy(FieldVector dst) {
    this.dst = dst;
    this.kind = SparkArrowKind.of(dst);
    DecimalVector d = dst instanceof DecimalVector dv ? dv : null;
    this.precision = d == null ? 0 : d.getPrecision();
    this.scale = d == null ? 0 : d.getScale();
  }

  /** Replaces the Arrow vector's contents with rows [0, n) of src. */
  void copy(ColumnVector src, int n) {
    if (kind == SparkArrowKind.NESTED) {
      copyNested(src, n);
      return;
    }
    if (kind == SparkArrowKind.NULL) {
      dst.setValueCount(n);
      return;
    }
    if (bulkStorage(src)) {
      WritableColumnVector w = (WritableColumnVector) src;
      if (kind == SparkArrowKind.VAR) {
        copyVarBulk(w, n);
      } else {
        prepareFixed(n);
        copyValidityBulk(w, n);
        copyFixedBulk(n);
      }
    } else if (kind == SparkArrowKind.VAR && SparkColumnMemory.AVAILABLE && src instanceof WritableColumnVector w
        && w.hasDictionary()) {
      copyVarDictionary(w, n);
    } else if (kind == SparkArrowKind.VAR) {
      copyVarByValue(src, n);
    } else if (dictionaryNumbers(src)) {
      prepareFixed(n);
      copyFixedDictionary((WritableColumnVector) src, n);
    } else {
      prepareFixed(n);
      copyFixedByValue(src, n);
    }
    dst.setValueCount(n);
  }

  /** Points the storage fields at src's memory; false when src must be read value by value. */
  private boolean bulkStorage(ColumnVector src) {
    if (!SparkColumnMemory.AVAILABLE || kind == SparkArrowKind.DECIMAL_WIDE) {
      return false;
    }
    if (src instanceof OnHeapColumnVector v && !v.hasDictionary()) {
      nullsBase = SparkColumnMemory.nulls(v);
      nullsAt = Platform.BYTE_ARRAY_OFFSET;
      switch (kind) {
        case SparkArrowKind.BOOL, SparkArrowKind.BYTE -> onHeap(SparkColumnMemory.bytes(v), Platform.BYTE_ARRAY_OFFSET);
        case SparkArrowKind.SHORT -> onHeap(SparkColumnMemory.shorts(v), Platform.SHORT_ARRAY_OFFSET);
        case SparkArrowKind.INT -> onHeap(SparkColumnMemory.ints(v), Platform.INT_ARRAY_OFFSET);
        case SparkArrowKind.LONG -> onHeap(SparkColumnMemory.longs(v), Platform.LONG_ARRAY_OFFSET);
        case SparkArrowKind.FLOAT -> onHeap(SparkColumnMemory.floats(v), Platform.FLOAT_ARRAY_OFFSET);
        case SparkArrowKind.DOUBLE -> onHeap(SparkColumnMemory.doubles(v), Platform.DOUBLE_ARRAY_OFFSET);
        case SparkArrowKind.DECIMAL_LONG -> {
          if (precision <= SparkArrowKind.MAX_INT_DIGITS) {
            onHeap(SparkColumnMemory.ints(v), Platform.INT_ARRAY_OFFSET);
          } else {
            onHeap(SparkColumnMemory.longs(v), Platform.LONG_ARRAY_OFFSET);
          }
        }
        case SparkArrowKind.VAR -> {
          if (!(v.arrayData() instanceof OnHeapColumnVector child) || child.hasDictionary()) {
            return false;
          }
          lengthsBase = SparkColumnMemory.lengths(v);
          lengthsAt = Platform.INT_ARRAY_OFFSET;
          offsetsBase = SparkColumnMemory.offsets(v);
          offsetsAt = Platform.INT_ARRAY_OFFSET;
          bytesBase = SparkColumnMemory.bytes(child);
          bytesAt = Platform.BYTE_ARRAY_OFFSET;
        }
        default -> {
          return false;
        }
      }
      return dataBase != null || kind == SparkArrowKind.VAR;
    }
    if (src instanceof OffHeapColumnVector v && !v.hasDictionary()) {
      nullsBase = null;
      nullsAt = SparkColumnMemory.nulls(v);
      dataBase = null;
      dataAt = SparkColumnMemory.data(v);
      if (kind == SparkArrowKind.VAR) {
        if (!(v.arrayData() instanceof OffHeapColumnVector child) || child.hasDictionary()) {
          return false;
        }
        lengthsBase = null;
        lengthsAt = SparkColumnMemory.lengths(v);
        offsetsBase = null;
        offsetsAt = SparkColumnMemory.offsets(v);
        bytesBase = null;
        bytesAt = SparkColumnMemory.data(child);
      }
      return true;
    }
    return false;
  }

  /**
   * Whether src is a reader's dictionary-encoded vector of numbers read through its int/long/float/double
   * getter (as copyFixedByValue would), so each dictionary entry can be decoded once; points the null fields at
   * its null bytes.
   */
  private boolean dictionaryNumbers(ColumnVector src) {
    if (!SparkColumnMemory.AVAILABLE || !(src instanceof WritableColumnVector w) || !w.hasDictionary()) {
      return false;
    }
    if (src instanceof OnHeapColumnVector v) {
      nullsBase = SparkColumnMemory.nulls(v);
      nullsAt = Platform.BYTE_ARRAY_OFFSET;
    } else if (src instanceof OffHeapColumnVector v) {
      nullsBase = null;
      nullsAt = SparkColumnMemory.nulls(v);
    } else {
      return false;
    }
    int decode;
    switch (kind) {
      case SparkArrowKind.BYTE, SparkArrowKind.SHORT, SparkArrowKind.INT -> decode = DictionaryNumbers.INT;
      case SparkArrowKind.LONG -> decode = DictionaryNumbers.LONG;
      case SparkArrowKind.FLOAT -> decode = DictionaryNumbers.FLOAT;
      case SparkArrowKind.DOUBLE -> decode = DictionaryNumbers.DOUBLE;
      case SparkArrowKind.DECIMAL_LONG -> {
        // Only where getDecimal reads the unscaled int/long getter back (the column's own precision and scale).
        if (!(src.dataType() instanceof DecimalType t && t.precision() == precision && t.scale() == scale)) {
          return false;
        }
        decode = precision <= SparkArrowKind.MAX_INT_DIGITS ? DictionaryNumbers.INT : DictionaryNumbers.LONG;
      }
      default -> {
        return false;
      }
    }
    if (dictionaryNumbers == null) {
      dictionaryNumbers = new DictionaryNumbers(decode);
    }
    return true;
  }

  /** A dictionary-encoded vector of numbers: each entry decoded once per dictionary, then stored per row. */
  private void copyFixedDictionary(WritableColumnVector w, int n) {
    DictionaryNumbers values = dictionaryNumbers;
    values.use(SparkColumnMemory.dictionary(w));
    copyValidityBulk(w, n);
    if (w.isAllNull()) {
      return;
    }
    boolean anyNull = w.hasNull();
    WritableColumnVector ids = w.getDictionaryIds();
    int[] idArray = ids instanceof OnHeapColumnVector h ? SparkColumnMemory.ints(h) : null;
    long to = dst.getDataBufferAddress();
    if (idArray != null) {
      // The common case (a reader's on-heap ids, a Parquet dictionary decoded whole): a range test, one load and
      // one store per row, no switch. A null row's id is whatever the reader left there: in range it is read
      // like any other (the value under a null is never looked at), outside it is not decoded.
      long[] decoded = values.decoded();
      int size = values.decodedCount();
      switch (kind) {
        case SparkArrowKind.INT, SparkArrowKind.FLOAT -> {
          for (int i = 0; i < n; i++) {
            int id = idArray[i];
            long v = id >= 0 && id < size ? decoded[id] : bitsOfRow(values, id, anyNull, i);
            MemoryUtil.putInt(to + 4L * i, (int) v);
          }
          return;
        }
        case SparkArrowKind.LONG, SparkArrowKind.DOUBLE -> {
          for (int i = 0; i < n; i++) {
            int id = idArray[i];
            long v = id >= 0 && id < size ? decoded[id] : bitsOfRow(values, id, anyNull, i);
            MemoryUtil.putLong(to + 8L * i, v);
          }
          return;
        }
        case SparkArrowKind.DECIMAL_LONG -> { // the unscaled value, sign-extended to 128 bits
          for (int i = 0; i < n; i++) {
            int id = idArray[i];
            long v = id >= 0 && id < size ? decoded[id] : bitsOfRow(values, id, anyNull, i);
            MemoryUtil.putLong(to + 16L * i, v);
            MemoryUtil.putLong(to + 16L * i + 8, v >> 63);
          }
          return;
        }
        default -> { } // bytes and shorts: the loop below
      }
    }
    for (int i = 0; i < n; i++) {
      if (anyNull && Platform.getByte(nullsBase, nullsAt + i) != 0) {
        continue; // the id under a null is whatever the reader left there
      }
      long v = values.bits(idArray != null ? idArray[i] : ids.getDictId(i));
      switch (kind) {
        case SparkArrowKind.BYTE -> MemoryUtil.putByte(to + i, (byte) v);
        case SparkArrowKind.SHORT -> MemoryUtil.putShort(to + 2L * i, (short) v);
        case SparkArrowKind.INT, SparkArrowKind.FLOAT -> MemoryUtil.putInt(to + 4L * i, (int) v);
        case SparkArrowKind.LONG, SparkArrowKind.DOUBLE -> MemoryUtil.putLong(to + 8L * i, v);
        default -> { // DECIMAL_LONG: the unscaled value, sign-extended to 128 bits
          MemoryUtil.putLong(to + 16L * i, v);
          MemoryUtil.putLong(to + 16L * i + 8, v >> 63);
        }
      }
    }
  }

  /** Row i's value bits from the dictionary, or 0 under a null (whose id may be no entry at all). */
  private long bitsOfRow(DictionaryNumbers values, int id, boolean anyNull, int i) {
    return anyNull && Platform.getByte(nullsBase, nullsAt + i) != 0 ? 0 : values.bits(id);
  }

  private void onHeap(Object array, long baseOffset) {
    dataBase = array;
    dataAt = baseOffset;
  }

  private void prepareFixed(int n) {
    BaseFixedWidthVector v = (BaseFixedWidthVector) dst;
    if (v.getValueCapacity() < n) {
      v.allocateNew(n);
    }
    long bitmapBytes = (n + 7) / 8;
    v.getValidityBuffer().setZero(0, bitmapBytes);
    if (kind == SparkArrowKind.BOOL) {
      v.getDataBuffer().setZero(0, bitmapBytes);
    }
  }

  /** Spark keeps one byte per row (1 = null); Arrow one bit per row (1 = valid). */
  private void copyValidityBulk(WritableColumnVector w, int n) {
    long bits = dst.getValidityBufferAddress();
    if (w.isAllNull()) {
      return; // already zero
    }
    if (!w.hasNull()) {
      dst.getValidityBuffer().setOne(0, (n + 7) / 8);
      return;
    }
    packBits(nullsBase, nullsAt, n, bits, true);
  }

  /** Packs one 0/1 byte per row into bits at {@code to}; {@code invert} for null bytes to validity bits. */
  private static void packBits(Object base, long at, int n, long to, boolean invert) {
    int flip = invert ? 1 : 0;
    for (int byteIndex = 0; byteIndex * 8 < n; byteIndex++) {
      int first = byteIndex * 8;
      int last = Math.min(n, first + 8);
      int packed = 0;
      for (int i = first; i < last; i++) {
        packed |= ((Platform.getByte(base, at + i) & 1) ^ flip) << (i - first);
      }
      MemoryUtil.putByte(to + byteIndex, (byte) packed);
    }
  }

  private void copyFixedBulk(int n) {
    long to = dst.getDataBufferAddress();
    switch (kind) {
      case SparkArrowKind.BOOL -> packBits(dataBase, dataAt, n, to, false);
      case SparkArrowKind.BYTE -> Platform.copyMemory(dataBase, dataAt, null, to, n);
      case SparkArrowKind.SHORT -> Platform.copyMemory(dataBase, dataAt, null, to, 2L * n);
      case SparkArrowKind.INT, SparkArrowKind.FLOAT -> Platform.copyMemory(dataBase, dataAt, null, to, 4L * n);
      case SparkArrowKind.LONG, SparkArrowKind.DOUBLE -> Platform.copyMemory(dataBase, dataAt, null, to, 8L * n);
      case SparkArrowKind.DECIMAL_LONG -> {
        boolean ints = precision <= SparkArrowKind.MAX_INT_DIGITS;
        for (int i = 0; i < n; i++) {
          long unscaled = ints ? Platform.getInt(dataBase, dataAt + 4L * i)
              : Platform.getLong(dataBase, dataAt + 8L * i);
          MemoryUtil.putLong(to + 16L * i, unscaled);
          MemoryUtil.putLong(to + 16L * i + 8, unscaled >> 63);
        }
      }
      default -> throw new IllegalStateException("no bulk copy for kind " + kind);
    }
  }

  private void copyVarBulk(WritableColumnVector w, int n) {
    BaseVariableWidthVector v = (BaseVariableWidthVector) dst;
    boolean allNull = w.isAllNull();
    boolean anyNull = w.hasNull();
    // Lengths under null slots are left over from earlier batches: count only valid rows. The readers
    // append values one after another, so the valid values usually sit back to back in the child's bytes:
    // then the whole payload moves in one copy.
    long total = 0;
    int first = -1;
    boolean contiguous = true;
    if (!allNull) {
      for (int i = 0; i < n; i++) {
        if (!anyNull || Platform.getByte(nullsBase, nullsAt + i) == 0) {
          int from = Platform.getInt(offsetsBase, offsetsAt + 4L * i);
          if (first < 0) {
            first = from;
          } else if (from != first + total) {
            contiguous = false;
          }
          total += Platform.getInt(lengthsBase, lengthsAt + 4L * i);
        }
      }
    }
    prepareVar(v, n, total);
    long bits = v.getValidityBufferAddress();
    long offsets = v.getOffsetBufferAddress();
    long data = v.getDataBufferAddress();
    if (contiguous && first >= 0) {
      Platform.copyMemory(bytesBase, bytesAt + first, null, data, total);
    }
    int end = 0;
    MemoryUtil.putInt(offsets, 0);
    for (int i = 0; i < n; i++) {
      if (!allNull && (!anyNull || Platform.getByte(nullsBase, nullsAt + i) == 0)) {
        int len = Platform.getInt(lengthsBase, lengthsAt + 4L * i);
        if (!contiguous) {
          int from = Platform.getInt(offsetsBase, offsetsAt + 4L * i);
          Platform.copyMemory(bytesBase, bytesAt + from, null, data + end, len);
        }
        end += len;
        setBit(bits, i);
      }
      MemoryUtil.putInt(offsets + 4L * (i + 1), end);
    }
    v.setLastSet(n - 1);
  }

  private static void prepareVar(BaseVariableWidthVector v, int n, long totalBytes) {
    if (totalBytes > Integer.MAX_VALUE) {
      throw new IllegalStateException("column " + v.getName() + ": more than 2 GiB of bytes in one batch of " + n
          + " rows");
    }
    if (v.getValueCapacity() < n || v.getDataBuffer().capacity() < totalBytes) {
      v.allocateNew(Math.max(totalBytes, 1), Math.max(n, 1));
    }
    v.getValidityBuffer().setZero(0, (n + 7) / 8);
  }

  private static void setBit(long bitmap, int i) {
    long at = bitmap + (i >>> 3);
    MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | (1 << (i & 7))));
  }

  private void copyFixedByValue(ColumnVector src, int n) {
    long bits = dst.getValidityBufferAddress();
    long to = dst.getDataBufferAddress();
    // Spark's writable vectors keep a decimal of at most 18 digits as its unscaled int or long (getDecimal
    // reads it back the same way, dictionary-encoded or not): read that, no Decimal object per value.
    boolean unscaledStorage = kind == SparkArrowKind.DECIMAL_LONG && src instanceof WritableColumnVector
        && src.dataType() instanceof DecimalType t && t.precision() == precision && t.scale() == scale;
    boolean intStorage = precision <= SparkArrowKind.MAX_INT_DIGITS;
    for (int i = 0; i < n; i++) {
      if (src.isNullAt(i)) {
        continue;
      }
      setBit(bits, i);
      switch (kind) {
        case SparkArrowKind.BOOL -> {
          if (src.getBoolean(i)) {
            setBit(to, i);
          }
        }
        case SparkArrowKind.BYTE -> MemoryUtil.putByte(to + i, src.getByte(i));
        case SparkArrowKind.SHORT -> MemoryUtil.putShort(to + 2L * i, src.getShort(i));
        case SparkArrowKind.INT -> MemoryUtil.putInt(to + 4L * i, src.getInt(i));
        case SparkArrowKind.LONG -> MemoryUtil.putLong(to + 8L * i, src.getLong(i));
        case SparkArrowKind.FLOAT -> MemoryUtil.putInt(to + 4L * i, Float.floatToRawIntBits(src.getFloat(i)));
        case SparkArrowKind.DOUBLE -> MemoryUtil.putLong(to + 8L * i, Double.doubleToRawLongBits(src.getDouble(i)));
        case SparkArrowKind.DECIMAL_LONG -> {
          if (unscaledStorage) {
            long unscaled = intStorage ? src.getInt(i) : src.getLong(i);
            MemoryUtil.putLong(to + 16L * i, unscaled);
            MemoryUtil.putLong(to + 16L * i + 8, unscaled >> 63);
            continue;
          }
          Decimal d = src.getDecimal(i, precision, scale);
          if (d == null || !d.changePrecision(precision, scale)) {
            clearBit(bits, i);
          } else {
            long unscaled = d.toUnscaledLong();
            MemoryUtil.putLong(to + 16L * i, unscaled);
            MemoryUtil.putLong(to + 16L * i + 8, unscaled >> 63);
          }
        }
        default -> {
          Decimal d = src.getDecimal(i, precision, scale);
          if (d == null || !d.changePrecision(precision, scale)) {
            clearBit(bits, i);
          } else {
            ((DecimalVector) dst).set(i, d.toJavaBigDecimal());
          }
        }
      }
    }
  }

  private static void clearBit(long bitmap, int i) {
    long at = bitmap + (i >>> 3);
    MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) & ~(1 << (i & 7))));
  }

  /** The i-th value's bytes, or null for a null; for the per-value string copies. */
  @FunctionalInterface
  private interface ValueBytes {
    byte[] at(int i);
  }

  private void copyVarByValue(ColumnVector src, int n) {
    boolean strings = dst instanceof VarCharVector;
    copyVarValues(n, i -> src.isNullAt(i) ? null
        : strings ? src.getUTF8String(i).getBytes() : src.getBinary(i));
  }

  /** Dictionary-encoded strings: each id's value decoded once per dictionary, then moved word-wise. */
  private void copyVarDictionary(WritableColumnVector w, int n) {
    dictionaryStrings.use(SparkColumnMemory.dictionary(w));
    WritableColumnVector ids = w.getDictionaryIds();
    int[] idArray = ids instanceof OnHeapColumnVector h ? SparkColumnMemory.ints(h) : null;
    boolean allNull = w.isAllNull();
    boolean anyNull = w.hasNull();
    BaseVariableWidthVector v = (BaseVariableWidthVector) dst;
    long total = 0;
    if (!allNull) {
      for (int i = 0; i < n; i++) {
        if (!anyNull || !w.isNullAt(i)) {
          total += dictionaryStrings.length(idArray != null ? idArray[i] : ids.getDictId(i));
        }
      }
    }
    prepareVar(v, n, total + DictionaryStrings.SLACK);
    long bits = v.getValidityBufferAddress();
    long offsets = v.getOffsetBufferAddress();
    long data = v.getDataBufferAddress();
    int end = 0;
    MemoryUtil.putInt(offsets, 0);
    for (int i = 0; i < n; i++) {
      if (!allNull && (!anyNull || !w.isNullAt(i))) {
        end += dictionaryStrings.copyTo(idArray != null ? idArray[i] : ids.getDictId(i), data + end);
        setBit(bits, i);
      }
      MemoryUtil.putInt(offsets + 4L * (i + 1), end);
    }
    v.setLastSet(n - 1);
  }

  /** Two passes over the values: their total size first (one allocation), then the copies. */
  private void copyVarValues(int n, ValueBytes values) {
    BaseVariableWidthVector v = (BaseVariableWidthVector) dst;
    long total = 0;
    for (int i = 0; i < n; i++) {
      byte[] b = values.at(i);
      if (b != null) {
        total += b.length;
      }
    }
    prepareVar(v, n, total);
    long bits = v.getValidityBufferAddress();
    long offsets = v.getOffsetBufferAddress();
    long data = v.getDataBufferAddress();
    int end = 0;
    MemoryUtil.putInt(offsets, 0);
    for (int i = 0; i < n; i++) {
      byte[] b = values.at(i);
      if (b != null) {
        Platform.copyMemory(b, Platform.BYTE_ARRAY_OFFSET, null, data + end, b.length);
        end += b.length;
        setBit(bits, i);
      }
      MemoryUtil.putInt(offsets + 4L * (i + 1), end);
    }
    v.setLastSet(n - 1);
  }

  private void copyNested(ColumnVector src, int n) {
    if (nested == null) {
      nested = ArrowWriter$.MODULE$.createFieldWriter(dst);
    }
    nested.reset();
    ColumnarBatch one = new ColumnarBatch(new ColumnVector[] {src}, n);
    for (int i = 0; i < n; i++) {
      nested.write(one.getRow(i), 0);
    }
    nested.finish();
  }
}
