package io.rowmatch.spark.expression;

import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One evaluated expression over a batch, in plain Java arrays so every kernel is a tight loop over one
 * physical kind: validity as bitmap words (bit r of word r/64 set when row r is valid; {@code null} when every
 * row is), and the values by kind. A value under a null is unspecified; kernels mask with the validity.
 */
final class Vec {
  /** Physical kinds: the kernels switch on these once per batch, never per value. */
  static final int BOOL = 0;
  /** byte, short, int, long, date (days), timestamp and timestamp_ntz (microseconds), in {@link #longs}. */
  static final int LONG = 1;
  /** float and double, in {@link #doubles} (a float widened exactly). */
  static final int DOUBLE = 2;
  /** decimal: unscaled value in {@link #longs}; with precision above 18 also the high word in {@link #his}. */
  static final int DECIMAL = 3;
  /** string and binary: {@link #data}, {@link #starts}, {@link #lens}. */
  static final int BYTES = 4;
  /** NullType: every row null. */
  static final int NULL = 5;

  /**
   * Zero bytes after the last string of a column read from Arrow, so a string of up to 8 bytes can be loaded as one
   * word (ShortStrings); vectors made otherwise may lack them, which the readers check.
   */
  static final int BYTES_PAD = 8;

  final DataType type;
  final int kind;
  final int rows;
  long[] valid;
  long[] bits;
  long[] longs;
  long[] his;
  double[] doubles;
  byte[] data;
  int[] starts;
  int[] lens;
  /**
   * For strings read from a dictionary-encoded column: each row's dictionary id (rows of one id hold the same
   * value), ids below {@link #dictBound}; null otherwise. Lets a comparison with literals decide once per entry.
   */
  int[] dictIds;
  int dictBound;

  Vec(DataType type, int rows) {
    this.type = type;
    this.kind = kindOf(type);
    this.rows = rows;
  }

  static int words(int rows) {
    return (rows + 63) >>> 6;
  }

  static int kindOf(DataType t) {
    if (t instanceof BooleanType) {
      return BOOL;
    } else if (t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType
        || t instanceof DateType || t instanceof TimestampType || t instanceof TimestampNTZType) {
      return LONG;
    } else if (t instanceof FloatType || t instanceof DoubleType) {
      return DOUBLE;
    } else if (t instanceof DecimalType) {
      return DECIMAL;
    } else if (t instanceof StringType || t instanceof BinaryType) {
      return BYTES;
    } else if (t instanceof NullType) {
      return NULL;
    }
    return -1;
  }

  /** Whether a decimal type's unscaled values need 128 bits (Decimal.MAX_LONG_DIGITS is 18). */
  static boolean wide(DataType t) {
    return t instanceof DecimalType d && d.precision() > 18;
  }

  boolean isValid(int r) {
    return valid == null || (valid[r >>> 6] & (1L << r)) != 0;
  }

  /** A new vector of this type and size with value arrays allocated and every row valid. */
  static Vec allocate(DataType type, int rows) {
    return allocate(type, rows, null);
  }

  /**
   * A new vector whose numeric value arrays come from a batch's scratch (null: new ones): valid until the batch's
   * expressions open their next batch, and possibly longer than the rows, holding an earlier batch's values.
   */
  static Vec allocate(DataType type, int rows, VecScratch scratch) {
    Vec v = new Vec(type, rows);
    switch (v.kind) {
      case BOOL -> v.bits = new long[words(rows)];
      case LONG -> v.longs = scratch == null ? new long[rows] : scratch.longs(rows);
      case DOUBLE -> v.doubles = scratch == null ? new double[rows] : scratch.doubles(rows);
      case DECIMAL -> {
        v.longs = scratch == null ? new long[rows] : scratch.longs(rows);
        if (wide(type)) {
          v.his = scratch == null ? new long[rows] : scratch.longs(rows);
        }
      }
      case BYTES -> {
        v.starts = new int[rows];
        v.lens = new int[rows];
        v.data = new byte[0];
      }
      case NULL -> v.valid = new long[words(rows)];
      default -> throw new IllegalArgumentException("no vector kind for " + type.simpleString());
    }
    return v;
  }

  /**
   * Stores a decimal result in row r (its high word only where this vector keeps one; a vector without high words
   * needs the value to fit a long) and marks r in {@code flags} unless it is {@code ok}: the rows an overflow hands
   * to null or to Spark. Returns the mark, 1 or 0, for the caller's any-flag.
   */
  long putDecimal(int r, Int128 x, boolean ok, long[] flags) {
    longs[r] = x.lo;
    if (his != null) {
      his[r] = x.hi;
    } else {
      ok &= x.fitsLong();
    }
    long o = ok ? 0L : 1L;
    flags[r >>> 6] |= o << r;
    return o;
  }

  /** The validity words, allocated all-valid if the vector had none (for kernels that clear bits). */
  long[] validWords() {
    if (valid == null) {
      valid = allValid(rows);
    }
    return valid;
  }

  static long[] allValid(int rows) {
    long[] w = new long[words(rows)];
    java.util.Arrays.fill(w, -1L);
    if ((rows & 63) != 0) {
      w[w.length - 1] = (1L << rows) - 1;
    }
    return w;
  }

  /** a AND b of two validity masks (null = all valid); a fresh array unless one is null. */
  static long[] andValid(long[] a, long[] b) {
    if (a == null) {
      return b == null ? null : b.clone();
    }
    long[] out = a.clone();
    if (b != null) {
      for (int i = 0; i < out.length; i++) {
        out[i] &= b[i];
      }
    }
    return out;
  }

  /**
   * This vector's first n rows, sharing its value arrays (for values only: validity and boolean words would keep
   * this vector's length).
   */
  Vec firstRows(int n) {
    if (valid != null || kind == BOOL || n > rows) {
      throw new IllegalStateException("firstRows of a vector with words, or past its rows");
    }
    Vec out = new Vec(type, n);
    out.longs = longs;
    out.his = his;
    out.doubles = doubles;
    out.data = data;
    out.starts = starts;
    out.lens = lens;
    out.dictIds = dictIds;
    out.dictBound = dictBound;
    return out;
  }

  /** Rows {@code sel[0..n)} of this vector (strings share this vector's bytes); numeric arrays from scratch. */
  Vec gather(int[] sel, int n, VecScratch scratch) {
    Vec out = new Vec(type, n);
    out.valid = valid == null ? null : gatherBits(valid, sel, n);
    switch (kind) {
      case BOOL -> out.bits = gatherBits(bits, sel, n);
      case LONG, DECIMAL -> {
        out.longs = scratch == null ? new long[n] : scratch.longs(n);
        for (int i = 0; i < n; i++) {
          out.longs[i] = longs[sel[i]];
        }
        if (his != null) {
          out.his = scratch == null ? new long[n] : scratch.longs(n);
          for (int i = 0; i < n; i++) {
            out.his[i] = his[sel[i]];
          }
        }
      }
      case DOUBLE -> {
        out.doubles = scratch == null ? new double[n] : scratch.doubles(n);
        for (int i = 0; i < n; i++) {
          out.doubles[i] = doubles[sel[i]];
        }
      }
      case BYTES -> {
        out.data = data;
        out.starts = new int[n];
        out.lens = new int[n];
        for (int i = 0; i < n; i++) {
          out.starts[i] = starts[sel[i]];
          out.lens[i] = lens[sel[i]];
        }
        if (dictIds != null) {
          out.dictIds = new int[n];
          for (int i = 0; i < n; i++) {
            out.dictIds[i] = dictIds[sel[i]];
          }
          out.dictBound = dictBound;
        }
      }
      case NULL -> out.valid = new long[words(n)];
      default -> throw new IllegalStateException("cannot gather " + type.simpleString());
    }
    return out;
  }

  static long[] gatherBits(long[] words, int[] sel, int n) {
    long[] out = new long[words(n)];
    // a word at a time in a local: no store per row, and the 64 loads do not wait on each other
    for (int w = 0, base = 0; base < n; w++, base += 64) {
      int end = Math.min(64, n - base);
      long word = 0;
      for (int j = 0; j < end; j++) {
        int r = sel[base + j];
        word |= ((words[r >>> 6] >>> r) & 1L) << j;
      }
      out[w] = word;
    }
    return out;
  }

  /** Row r's value as Spark's internal value (for the rare rows Spark itself evaluates), null when null. */
  Object sparkValue(int r) {
    if (!isValid(r)) {
      return null;
    }
    switch (kind) {
      case BOOL:
        return (bits[r >>> 6] & (1L << r)) != 0;
      case LONG:
        long l = longs[r];
        if (type instanceof ByteType) {
          return (byte) l;
        } else if (type instanceof ShortType) {
          return (short) l;
        } else if (type instanceof IntegerType || type instanceof DateType) {
          return (int) l;
        }
        return l;
      case DOUBLE:
        return type instanceof FloatType ? (Object) (float) doubles[r] : (Object) doubles[r];
      case DECIMAL:
        DecimalType d = (DecimalType) type;
        if (his == null) {
          return Decimal.apply(longs[r], d.precision(), d.scale());
        }
        return Decimal.apply(new java.math.BigDecimal(Int128.toBigInteger(his[r], longs[r]), d.scale()),
            d.precision(), d.scale());
      case BYTES:
        byte[] b = java.util.Arrays.copyOfRange(data, starts[r], starts[r] + lens[r]);
        return type instanceof StringType ? UTF8String.fromBytes(b) : b;
      default:
        return null;
    }
  }

  /** Sets row r from Spark's internal value (the result of a row Spark evaluated); null clears it. */
  void setSparkValue(int r, Object value) {
    if (value == null) {
      validWords()[r >>> 6] &= ~(1L << r);
      return;
    }
    switch (kind) {
      case BOOL -> {
        if ((Boolean) value) {
          bits[r >>> 6] |= 1L << r;
        } else {
          bits[r >>> 6] &= ~(1L << r);
        }
      }
      case LONG -> longs[r] = ((Number) value).longValue();
      case DOUBLE -> doubles[r] = ((Number) value).doubleValue();
      case DECIMAL -> {
        Decimal d = (Decimal) value;
        java.math.BigInteger u = d.toJavaBigDecimal().unscaledValue();
        longs[r] = u.longValue();
        if (his != null) {
          his[r] = u.shiftRight(64).longValue();
        }
      }
      default -> throw new IllegalStateException("no row fallback into " + type.simpleString());
    }
  }
}
