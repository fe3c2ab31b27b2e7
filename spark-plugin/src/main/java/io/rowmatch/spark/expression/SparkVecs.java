package io.rowmatch.spark.expression;

import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

import io.rowmatch.spark.arrow.DictionaryNumbers;
import io.rowmatch.spark.arrow.DictionaryStrings;
import io.rowmatch.spark.arrow.SparkColumnMemory;
import io.rowmatch.spark.arrow.SparkColumnMemory.DictionaryIds;

/**
 * One column of a Spark (non-Arrow) batch read straight into a {@link Vec}, so a filter over a vectorized scan
 * evaluates its conjuncts without first copying every row of every column into Arrow: the on-heap readers'
 * arrays are read directly, a dictionary-encoded column decodes each dictionary entry once (strings become
 * offsets into the decoded entries, no byte copied per row), anything else goes through the ColumnVector
 * getters, which are exact for every vector. One reader per column and partition: the dictionary caches live
 * across batches (a Parquet column chunk spans many).
 */
final class SparkVecs {
  private final DataType type;
  private final int kind;
  private DictionaryNumbers numbers;
  private DictionaryStrings strings;

  SparkVecs(DataType type) {
    this.type = type;
    this.kind = Vec.kindOf(type);
  }

  /** Whether columns of this type are read here (every Vec kind but NullType). */
  static boolean readable(DataType type) {
    int k = Vec.kindOf(type);
    return k >= 0 && k != Vec.NULL;
  }

  /**
   * Rows {@code sel[0..n)} of src (rows 0..n when sel is null), valid until src's next batch; numeric arrays from
   * {@code scratch} (null: new ones).
   */
  Vec read(ColumnVector src, int[] sel, int n, VecScratch scratch) {
    Vec out = new Vec(type, n);
    out.valid = validity(src, sel, n);
    WritableColumnVector w = SparkColumnMemory.AVAILABLE && src instanceof WritableColumnVector wc
        && (src instanceof OnHeapColumnVector || src instanceof OffHeapColumnVector) ? wc : null;
    boolean dictionary = w != null && w.hasDictionary();
    switch (kind) {
      case Vec.BOOL -> {
        long[] bits = new long[Vec.words(n)];
        for (int i = 0; i < n; i++) {
          int r = sel == null ? i : sel[i];
          if (out.isValid(i) && src.getBoolean(r)) {
            bits[i >>> 6] |= 1L << i;
          }
        }
        out.bits = bits;
      }
      case Vec.LONG -> out.longs = dictionary ? fromDictionary(w, sel, n, out.valid, scratch)
          : longs(src, w instanceof OnHeapColumnVector h ? h : null, sel, n, scratch);
      case Vec.DOUBLE -> {
        double[] d = scratch == null ? new double[n] : scratch.doubles(n);
        boolean isFloat = type instanceof FloatType;
        if (dictionary) {
          long[] raw = fromDictionary(w, sel, n, out.valid, scratch);
          for (int i = 0; i < n; i++) {
            d[i] = isFloat ? Float.intBitsToFloat((int) raw[i]) : Double.longBitsToDouble(raw[i]);
          }
        } else if (w instanceof OnHeapColumnVector h && !isFloat) {
          double[] a = SparkColumnMemory.doubles(h);
          for (int i = 0; i < n; i++) {
            d[i] = a[sel == null ? i : sel[i]];
          }
        } else {
          for (int i = 0; i < n; i++) {
            int r = sel == null ? i : sel[i];
            d[i] = out.isValid(i) ? (isFloat ? src.getFloat(r) : src.getDouble(r)) : 0;
          }
        }
        out.doubles = d;
      }
      case Vec.DECIMAL -> readDecimal(src, w, dictionary, sel, n, out, scratch);
      case Vec.BYTES -> {
        if (dictionary) {
          readDictionaryStrings(w, sel, n, out);
        } else if (w instanceof OnHeapColumnVector h && h.arrayData() instanceof OnHeapColumnVector child
            && !child.hasDictionary()) {
          // The reader's own bytes: its offsets and lengths index the child's array (valid rows only).
          int[] offsets = SparkColumnMemory.offsets(h);
          int[] lengths = SparkColumnMemory.lengths(h);
          int[] starts = new int[n];
          int[] lens = new int[n];
          for (int i = 0; i < n; i++) {
            if (out.isValid(i)) {
              int r = sel == null ? i : sel[i];
              starts[i] = offsets[r];
              lens[i] = lengths[r];
            }
          }
          out.data = SparkColumnMemory.bytes(child);
          out.starts = starts;
          out.lens = lens;
        } else {
          readStringsByValue(src, sel, n, out);
        }
      }
      default -> throw new IllegalStateException("no Spark column reader for " + type.simpleString());
    }
    return out;
  }

  /** Validity words of rows sel[0..n) (0..n), null when every one is valid. */
  long[] validity(ColumnVector src, int[] sel, int n) {
    if (!src.hasNull()) {
      return null;
    }
    long[] valid = new long[Vec.words(n)];
    byte[] nulls = SparkColumnMemory.AVAILABLE && src instanceof OnHeapColumnVector h ? SparkColumnMemory.nulls(h)
        : null;
    if (nulls == null) {
      for (int i = 0; i < n; i++) {
        if (!src.isNullAt(sel == null ? i : sel[i])) {
          valid[i >>> 6] |= 1L << i;
        }
      }
      return valid;
    }
    // A word of results at a time in a register, one loop per case: this runs for every nullable scan column.
    for (int w = 0, base = 0; base < n; w++, base += 64) {
      int end = Math.min(64, n - base);
      long word = 0;
      if (sel == null) {
        for (int j = 0; j < end; j++) {
          word |= (nulls[base + j] == 0 ? 1L : 0L) << j;
        }
      } else {
        for (int j = 0; j < end; j++) {
          word |= (nulls[sel[base + j]] == 0 ? 1L : 0L) << j;
        }
      }
      valid[w] = word;
    }
    return valid;
  }

  /** Most entries a dictionary may have for a predicate to be decided once per entry ({@link #encoded}). */
  static final int MAX_ENCODED_ENTRIES = 1 << 16;

  /**
   * src's dictionary encoding in this batch when its entries can be read into a Vec ({@link #entries}), else null:
   * an on-heap scan vector with a Parquet dictionary of at most {@link #MAX_ENCODED_ENTRIES} entries, of a kind
   * kept in longs, doubles or bytes (not boolean, not a decimal wider than 18 digits).
   */
  DictionaryIds encoded(ColumnVector src) {
    if (kind == Vec.BOOL || (kind == Vec.DECIMAL && Vec.wide((DecimalType) type))) {
      return null;
    }
    DictionaryIds e = SparkColumnMemory.dictionaryIds(src);
    return e == null || e.size() > MAX_ENCODED_ENTRIES ? null : e;
  }

  /**
   * The entries of an encoded column's dictionary as rows 0..size-1, each decoded as {@link #read} decodes a
   * row of that id, and one null row at {@code size}.
   */
  Vec entries(DictionaryIds e) {
    int n = e.size() + 1;
    Vec out = new Vec(type, n);
    long[] valid = Vec.allValid(n);
    valid[e.size() >>> 6] &= ~(1L << e.size());
    out.valid = valid;
    if (kind == Vec.BYTES) {
      if (strings == null) {
        strings = new DictionaryStrings();
      }
      strings.use(e.dictionary());
      int[] starts = new int[n];
      int[] lens = new int[n];
      for (int id = 0; id < e.size(); id++) {
        lens[id] = strings.length(id);
        starts[id] = strings.start(id);
      }
      out.data = strings.bytes(); // after every length(): a decode may grow the array
      out.starts = starts;
      out.lens = lens;
      return out;
    }
    if (numbers == null) {
      numbers = new DictionaryNumbers(decodeOf());
    }
    numbers.use(e.dictionary());
    long[] bits = new long[n];
    for (int id = 0; id < e.size(); id++) {
      bits[id] = numbers.bits(id);
    }
    if (kind == Vec.DOUBLE) {
      double[] d = new double[n];
      for (int id = 0; id < e.size(); id++) {
        d[id] = type instanceof FloatType ? Float.intBitsToFloat((int) bits[id]) : Double.longBitsToDouble(bits[id]);
      }
      out.doubles = d;
    } else {
      out.longs = bits;
    }
    return out;
  }

  /**
   * How this column's dictionary decodes a number: as the column's getter reads it (an int for byte, short, int,
   * date and a decimal of up to 9 digits; a float or double as such; a long otherwise).
   */
  private int decodeOf() {
    if (kind == Vec.DOUBLE) {
      return type instanceof FloatType ? DictionaryNumbers.FLOAT : DictionaryNumbers.DOUBLE;
    }
    if (kind == Vec.DECIMAL) {
      return ((DecimalType) type).precision() <= Decimal.MAX_INT_DIGITS() ? DictionaryNumbers.INT
          : DictionaryNumbers.LONG;
    }
    return type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof DateType ? DictionaryNumbers.INT : DictionaryNumbers.LONG;
  }

  /** Integral columns by the getter of their type (as Spark's own accessors read them). */
  private long[] longs(ColumnVector src, OnHeapColumnVector h, int[] sel, int n, VecScratch scratch) {
    long[] l = scratch == null ? new long[n] : scratch.longs(n);
    if (h != null) {
      if (type instanceof ByteType) {
        byte[] a = SparkColumnMemory.bytes(h);
        for (int i = 0; i < n; i++) {
          l[i] = a[sel == null ? i : sel[i]];
        }
      } else if (type instanceof ShortType) {
        short[] a = SparkColumnMemory.shorts(h);
        for (int i = 0; i < n; i++) {
          l[i] = a[sel == null ? i : sel[i]];
        }
      } else if (type instanceof IntegerType || type instanceof DateType) {
        int[] a = SparkColumnMemory.ints(h);
        for (int i = 0; i < n; i++) {
          l[i] = a[sel == null ? i : sel[i]];
        }
      } else {
        long[] a = SparkColumnMemory.longs(h);
        for (int i = 0; i < n; i++) {
          l[i] = a[sel == null ? i : sel[i]];
        }
      }
      return l;
    }
    for (int i = 0; i < n; i++) {
      int r = sel == null ? i : sel[i];
      if (src.isNullAt(r)) {
        continue;
      }
      if (type instanceof ByteType) {
        l[i] = src.getByte(r);
      } else if (type instanceof ShortType) {
        l[i] = src.getShort(r);
      } else if (type instanceof IntegerType || type instanceof DateType) {
        l[i] = src.getInt(r);
      } else {
        l[i] = src.getLong(r);
      }
    }
    return l;
  }

  /** Each valid row's dictionary value (raw bits, ints sign-extended), each entry decoded once per dictionary. */
  private long[] fromDictionary(WritableColumnVector w, int[] sel, int n, long[] valid, VecScratch scratch) {
    if (numbers == null) {
      numbers = new DictionaryNumbers(decodeOf());
    }
    numbers.use(SparkColumnMemory.dictionary(w));
    WritableColumnVector ids = w.getDictionaryIds();
    int[] idArray = ids instanceof OnHeapColumnVector h ? SparkColumnMemory.ints(h) : null;
    long[] out = scratch == null ? new long[n] : scratch.longs(n);
    if (idArray != null) {
      // A Parquet dictionary decoded whole: a range test and one load per row. A null row's id is whatever the
      // reader left there: in range it is read like any other, outside it is not decoded.
      long[] decoded = numbers.decoded();
      int size = numbers.decodedCount();
      for (int i = 0; i < n; i++) {
        int id = idArray[sel == null ? i : sel[i]];
        out[i] = id >= 0 && id < size ? decoded[id]
            : valid != null && (valid[i >>> 6] & (1L << i)) == 0 ? 0 : numbers.bits(id);
      }
      return out;
    }
    for (int i = 0; i < n; i++) {
      if (valid != null && (valid[i >>> 6] & (1L << i)) == 0) {
        continue; // the id under a null is whatever the reader left there
      }
      out[i] = numbers.bits(ids.getDictId(sel == null ? i : sel[i]));
    }
    return out;
  }

  private void readDecimal(ColumnVector src, WritableColumnVector w, boolean dictionary, int[] sel, int n,
      Vec out, VecScratch scratch) {
    DecimalType t = (DecimalType) type;
    // Writable vectors keep a decimal of at most 18 digits as its unscaled int (up to 9) or long.
    if (w != null && !Vec.wide(t)) {
      boolean ints = t.precision() <= Decimal.MAX_INT_DIGITS();
      if (dictionary) {
        out.longs = fromDictionary(w, sel, n, out.valid, scratch);
        return;
      }
      if (w instanceof OnHeapColumnVector h) {
        long[] lo = scratch == null ? new long[n] : scratch.longs(n);
        if (ints) {
          int[] a = SparkColumnMemory.ints(h);
          for (int i = 0; i < n; i++) {
            lo[i] = a[sel == null ? i : sel[i]];
          }
        } else {
          long[] a = SparkColumnMemory.longs(h);
          for (int i = 0; i < n; i++) {
            lo[i] = a[sel == null ? i : sel[i]];
          }
        }
        out.longs = lo;
        return;
      }
    }
    long[] lo = scratch == null ? new long[n] : scratch.longs(n);
    long[] hi = !Vec.wide(t) ? null : scratch == null ? new long[n] : scratch.longs(n);
    for (int i = 0; i < n; i++) {
      if (!out.isValid(i)) {
        continue;
      }
      Decimal d = src.getDecimal(sel == null ? i : sel[i], t.precision(), t.scale());
      if (d == null || !d.changePrecision(t.precision(), t.scale())) {
        out.validWords()[i >>> 6] &= ~(1L << i); // as the copy into Arrow makes it
        continue;
      }
      if (hi == null) {
        lo[i] = d.toUnscaledLong();
      } else {
        java.math.BigInteger u = d.toJavaBigDecimal().unscaledValue();
        lo[i] = u.longValue();
        hi[i] = u.shiftRight(64).longValue();
      }
    }
    out.longs = lo;
    out.his = hi;
  }

  private void readDictionaryStrings(WritableColumnVector w, int[] sel, int n, Vec out) {
    if (strings == null) {
      strings = new DictionaryStrings();
    }
    strings.use(SparkColumnMemory.dictionary(w));
    WritableColumnVector ids = w.getDictionaryIds();
    int[] idArray = ids instanceof OnHeapColumnVector h ? SparkColumnMemory.ints(h) : null;
    int[] idOf = new int[n];
    int[] starts = new int[n];
    int[] lens = new int[n];
    int bound = 0;
    for (int i = 0; i < n; i++) {
      if (out.isValid(i)) {
        int r = sel == null ? i : sel[i];
        int id = idArray != null ? idArray[r] : ids.getDictId(r);
        lens[i] = strings.length(id); // decodes id on first use (and rejects a negative one)
        starts[i] = strings.start(id);
        idOf[i] = id;
        bound = Math.max(bound, id + 1);
      }
    }
    out.dictIds = idOf; // a null row's id is 0, which the readers of dictIds skip by validity
    out.dictBound = bound;
    out.data = strings.bytes();
    out.starts = starts;
    out.lens = lens;
  }

  private void readStringsByValue(ColumnVector src, int[] sel, int n, Vec out) {
    boolean binary = type instanceof BinaryType;
    byte[][] values = new byte[n][];
    long total = 0;
    for (int i = 0; i < n; i++) {
      if (out.isValid(i)) {
        int r = sel == null ? i : sel[i];
        UTF8String s = binary ? null : src.getUTF8String(r);
        values[i] = binary ? src.getBinary(r) : s.getBytes();
        total += values[i].length;
      }
    }
    if (total > Integer.MAX_VALUE - Vec.BYTES_PAD) {
      throw new IllegalStateException("a batch's " + type.simpleString() + " column exceeds 2 GB");
    }
    byte[] data = new byte[(int) total + Vec.BYTES_PAD];
    int[] starts = new int[n];
    int[] lens = new int[n];
    int at = 0;
    for (int i = 0; i < n; i++) {
      if (values[i] != null) {
        System.arraycopy(values[i], 0, data, at, values[i].length);
        starts[i] = at;
        lens[i] = values[i].length;
        at += lens[i];
      }
    }
    out.data = data;
    out.starts = starts;
    out.lens = lens;
  }
}
