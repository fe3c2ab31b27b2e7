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

  /** Most entries decoded up front (a Parquet dictionary page holds at most a few hundred thousand numbers). */
  private static final int MAX_EAGER = 1 << 20;

  private final int decode;
  private Dictionary source;
  private Object sourceIdentity;
  private long[] values = new long[0];
  /** Ids below this were all decoded when the dictionary arrived; above it, {@link #known} says. */
  private int decodedUpTo;
  private boolean[] known = new boolean[0];

  public DictionaryNumbers(int decode) {
    this.decode = decode;
  }

  /**
   * Switches to d; the same dictionary behind a new per-batch wrapper keeps its decoded values. A Parquet
   * dictionary, whose size is known, is decoded whole at once, so a row's read is one array load.
   */
  public void use(Dictionary d) {
    source = d;
    Object identity = SparkColumnMemory.dictionarySource(d);
    if (!identity.equals(sourceIdentity)) {
      sourceIdentity = identity;
      Arrays.fill(known, false);
      decodedUpTo = 0;
      int entries = SparkColumnMemory.dictionaryEntries(d);
      if (entries > 0 && entries <= MAX_EAGER) {
        if (values.length < entries) {
          values = new long[entries];
        }
        for (int id = 0; id < entries; id++) {
          values[id] = decodeBits(id);
        }
        decodedUpTo = entries;
      }
    }
  }

  /**
   * The values decoded when the dictionary arrived: id's bits are {@code decoded()[id]} for ids below
   * {@link #decodedCount()}, so a loop over many ids reads them with one range test (any other id: {@link #bits}).
   */
  public long[] decoded() {
    return values;
  }

  public int decodedCount() {
    return decodedUpTo;
  }

  /** The raw bits of id's value (an int or float widened as its bits, sign-extended for ints). */
  public long bits(int id) {
    if (id >= 0 && id < decodedUpTo) {
      return values[id];
    }
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
      values = Arrays.copyOf(values, Math.max(size, values.length));
      known = Arrays.copyOf(known, size);
    }
    long v = decodeBits(id);
    values[id] = v;
    known[id] = true;
    return v;
  }

  private long decodeBits(int id) {
    return switch (decode) {
      case INT -> source.decodeToInt(id);
      case LONG -> source.decodeToLong(id);
      case FLOAT -> Float.floatToRawIntBits(source.decodeToFloat(id));
      default -> Double.doubleToRawLongBits(source.decodeToDouble(id));
    };
  }
}
