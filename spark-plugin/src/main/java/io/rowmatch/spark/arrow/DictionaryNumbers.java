package io.rowmatch.spark.arrow;

import java.util.Arrays;

import org.apache.spark.sql.execution.vectorized.Dictionary;

/**
 * The numbers of a reader's dictionary (one Parquet column chunk), each decoded once: Spark's getInt/getLong
 * on a dictionary-encoded vector calls the dictionary per row (two virtual calls and Parquet's own lookup),
 * which was the largest share of copying TPC-H's dictionary-encoded decimals (l_discount, l_quantity) into
 * Arrow. Values are kept as the raw bits of what the vector's getter returns (floats and doubles by their raw
 * bits, so NaN payloads and -0.0 survive).
 */
public final class DictionaryNumbers {
  /** What the column's getter decodes: {@link Dictionary#decodeToInt} and the like. */
  public static final int INT = 0;
  public static final int LONG = 1;
  public static final int FLOAT = 2;
  public static final int DOUBLE = 3;

  private final int decode;
  private Dictionary source;
  private Object sourceIdentity;
  private long[] values = new long[0];
  private boolean[] known = new boolean[0];

  public DictionaryNumbers(int decode) {
    this.decode = decode;
  }

  /** Switches to d; the same dictionary behind a new per-batch wrapper keeps its decoded values. */
  public void use(Dictionary d) {
    source = d;
    Object identity = SparkColumnMemory.dictionarySource(d);
    if (!identity.equals(sourceIdentity)) {
      sourceIdentity = identity;
      Arrays.fill(known, false);
    }
  }

  /** The raw bits of id's value (an int or float widened as its bits, sign-extended for ints). */
  public long bits(int id) {
    if (id >= 0 && id < known.length && known[id]) {
      return values[id];
    }
    return decode(id);
  }

  private long decode(int id) {
    if (id < 0) {
      throw new IllegalStateException("negative dictionary id " + id);
    }
    if (id >= known.length) {
      int size = Math.max(id + 1, 2 * known.length);
      values = Arrays.copyOf(values, size);
      known = Arrays.copyOf(known, size);
    }
    long v = switch (decode) {
      case INT -> source.decodeToInt(id);
      case LONG -> source.decodeToLong(id);
      case FLOAT -> Float.floatToRawIntBits(source.decodeToFloat(id));
      default -> Double.doubleToRawLongBits(source.decodeToDouble(id));
    };
    values[id] = v;
    known[id] = true;
    return v;
  }
}
