package io.rowmatch.spark.arrow;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

import org.apache.spark.sql.execution.datasources.parquet.ParquetDictionary;
import org.apache.spark.sql.execution.vectorized.Dictionary;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;

/**
 * The storage behind Spark's writable column vectors, which Spark keeps private: the Java arrays of an
 * OnHeapColumnVector, the native addresses of an OffHeapColumnVector, and a vector's dictionary. Read once per batch and column so
 * that a whole column is copied in bulk rather than value by value. If this Spark build lays its vectors out
 * differently, {@link #AVAILABLE} is false and callers take the per-value path.
 */
public final class SparkColumnMemory {
  public static final boolean AVAILABLE;
  private static final VarHandle ON_NULLS;
  private static final VarHandle ON_BYTES;
  private static final VarHandle ON_SHORTS;
  private static final VarHandle ON_INTS;
  private static final VarHandle ON_LONGS;
  private static final VarHandle ON_FLOATS;
  private static final VarHandle ON_DOUBLES;
  private static final VarHandle ON_LENGTHS;
  private static final VarHandle ON_OFFSETS;
  private static final VarHandle OFF_NULLS;
  private static final VarHandle OFF_DATA;
  private static final VarHandle OFF_LENGTHS;
  private static final VarHandle OFF_OFFSETS;
  private static final VarHandle DICTIONARY;

  static {
    VarHandle[] h = new VarHandle[14];
    boolean ok;
    try {
      MethodHandles.Lookup on = MethodHandles.privateLookupIn(OnHeapColumnVector.class, MethodHandles.lookup());
      MethodHandles.Lookup off = MethodHandles.privateLookupIn(OffHeapColumnVector.class, MethodHandles.lookup());
      Class<OnHeapColumnVector> c = OnHeapColumnVector.class;
      h[0] = on.findVarHandle(c, "nulls", byte[].class);
      h[1] = on.findVarHandle(c, "byteData", byte[].class);
      h[2] = on.findVarHandle(c, "shortData", short[].class);
      h[3] = on.findVarHandle(c, "intData", int[].class);
      h[4] = on.findVarHandle(c, "longData", long[].class);
      h[5] = on.findVarHandle(c, "floatData", float[].class);
      h[6] = on.findVarHandle(c, "doubleData", double[].class);
      h[7] = on.findVarHandle(c, "arrayLengths", int[].class);
      h[8] = on.findVarHandle(c, "arrayOffsets", int[].class);
      Class<OffHeapColumnVector> o = OffHeapColumnVector.class;
      h[9] = off.findVarHandle(o, "nulls", long.class);
      h[10] = off.findVarHandle(o, "data", long.class);
      h[11] = off.findVarHandle(o, "lengthData", long.class);
      h[12] = off.findVarHandle(o, "offsetData", long.class);
      h[13] = MethodHandles.privateLookupIn(WritableColumnVector.class, MethodHandles.lookup())
          .findVarHandle(WritableColumnVector.class, "dictionary", Dictionary.class);
      ok = true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      ok = false;
    }
    AVAILABLE = ok;
    ON_NULLS = h[0];
    ON_BYTES = h[1];
    ON_SHORTS = h[2];
    ON_INTS = h[3];
    ON_LONGS = h[4];
    ON_FLOATS = h[5];
    ON_DOUBLES = h[6];
    ON_LENGTHS = h[7];
    ON_OFFSETS = h[8];
    OFF_NULLS = h[9];
    OFF_DATA = h[10];
    OFF_LENGTHS = h[11];
    OFF_OFFSETS = h[12];
    DICTIONARY = h[13];
  }

  private SparkColumnMemory() {}

  public static byte[] nulls(OnHeapColumnVector v) {
    return (byte[]) ON_NULLS.get(v);
  }

  public static byte[] bytes(OnHeapColumnVector v) {
    return (byte[]) ON_BYTES.get(v);
  }

  public static short[] shorts(OnHeapColumnVector v) {
    return (short[]) ON_SHORTS.get(v);
  }

  public static int[] ints(OnHeapColumnVector v) {
    return (int[]) ON_INTS.get(v);
  }

  public static long[] longs(OnHeapColumnVector v) {
    return (long[]) ON_LONGS.get(v);
  }

  public static float[] floats(OnHeapColumnVector v) {
    return (float[]) ON_FLOATS.get(v);
  }

  public static double[] doubles(OnHeapColumnVector v) {
    return (double[]) ON_DOUBLES.get(v);
  }

  public static int[] lengths(OnHeapColumnVector v) {
    return (int[]) ON_LENGTHS.get(v);
  }

  public static int[] offsets(OnHeapColumnVector v) {
    return (int[]) ON_OFFSETS.get(v);
  }

  static long nulls(OffHeapColumnVector v) {
    return (long) OFF_NULLS.get(v);
  }

  static long data(OffHeapColumnVector v) {
    return (long) OFF_DATA.get(v);
  }

  static long lengths(OffHeapColumnVector v) {
    return (long) OFF_LENGTHS.get(v);
  }

  static long offsets(OffHeapColumnVector v) {
    return (long) OFF_OFFSETS.get(v);
  }

  /**
   * A scan column's dictionary encoding in one batch: each row's id ({@code ids}, read where {@code nulls} is 0 or
   * null) into {@code dictionary} of {@code size} entries, whose values stay the same for as long as {@code identity}
   * is equal (a Parquet column chunk; see {@link #dictionarySource}).
   */
  public record DictionaryIds(Object identity, Dictionary dictionary, int size, int[] ids, byte[] nulls) {}

  /**
   * The column's dictionary ids in this batch, or null: not an on-heap vector whose batch is dictionary-encoded
   * (Spark's reader decodes a batch whose pages are not) with a Parquet dictionary of known size.
   */
  public static DictionaryIds dictionaryIds(org.apache.spark.sql.vectorized.ColumnVector column) {
    if (!AVAILABLE || !(column instanceof OnHeapColumnVector h) || !h.hasDictionary()
        || !(h.getDictionaryIds() instanceof OnHeapColumnVector ids)) {
      return null;
    }
    Dictionary d = dictionary(h);
    int size = dictionaryEntries(d);
    return size <= 0 ? null : new DictionaryIds(dictionarySource(d), d, size, ints(ids), h.hasNull() ? nulls(h) : null);
  }

  public static Dictionary dictionary(WritableColumnVector v) {
    return (Dictionary) DICTIONARY.get(v);
  }

  /**
   * What identifies d's values from batch to batch. Spark's Parquet reader wraps its column chunk's one
   * dictionary in a new {@link ParquetDictionary} for every batch: the wrapped Parquet dictionary (with the
   * wrapper's transform flag, which changes the decoded bytes) stays the same for the whole chunk. Any other
   * dictionary is its own identity.
   */
  public static Object dictionarySource(Dictionary d) {
    if (PARQUET_DICTIONARY != null && d instanceof ParquetDictionary p) {
      Object inner = PARQUET_DICTIONARY.get(p);
      return (boolean) PARQUET_NEEDS_TRANSFORM.get(p) ? List.of(inner, Boolean.TRUE) : inner;
    }
    return d;
  }

  /** How many entries d has (ids 0 to n-1) when it wraps a Parquet dictionary, else -1 (not known). */
  public static int dictionaryEntries(Dictionary d) {
    if (PARQUET_DICTIONARY != null && d instanceof ParquetDictionary p) {
      return ((org.apache.parquet.column.Dictionary) PARQUET_DICTIONARY.get(p)).getMaxId() + 1;
    }
    return -1;
  }

  private static final VarHandle PARQUET_DICTIONARY;
  private static final VarHandle PARQUET_NEEDS_TRANSFORM;

  static {
    VarHandle inner = null;
    VarHandle transform = null;
    try {
      MethodHandles.Lookup l = MethodHandles.privateLookupIn(ParquetDictionary.class, MethodHandles.lookup());
      inner = l.findVarHandle(ParquetDictionary.class, "dictionary", org.apache.parquet.column.Dictionary.class);
      transform = l.findVarHandle(ParquetDictionary.class, "needTransform", boolean.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      inner = null; // another layout: each wrapper is its own identity (correct, decoded once per batch)
    }
    PARQUET_DICTIONARY = inner;
    PARQUET_NEEDS_TRANSFORM = transform;
  }
}
