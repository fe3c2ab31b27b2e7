package io.rowmatch.spark.expression;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;

import io.rowmatch.spark.arrow.SparkColumnMemory.DictionaryIds;

/**
 * A scan column's Parquet dictionary as an Arrow column of the column's type: entry id i at row i, then one null row
 * (the id a null row takes), each entry decoded as the scan's getters decode it ({@link SparkVecs#entries}). For
 * operators that decide something once per entry of a column chunk and then answer each row by its id.
 */
public final class DictionaryEntries {
  private DictionaryEntries() {}

  /**
   * Whether columns of this type decode here exactly as the scan reads them: the integral types, date, float,
   * double, a decimal of up to 18 digits (an int or long in Parquet) and string.
   */
  public static boolean supports(DataType type) {
    return type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof LongType || type instanceof DateType || type instanceof FloatType
        || type instanceof DoubleType || type instanceof StringType
        || type instanceof DecimalType d && d.precision() <= Decimal.MAX_LONG_DIGITS();
  }

  /** The dictionary's entries and a null row as a new vector of Spark's Arrow mapping of {@code type}. */
  public static FieldVector arrow(DictionaryIds dictionary, DataType type, String name, String timeZone,
      BufferAllocator allocator) {
    if (!supports(type)) {
      throw new IllegalArgumentException("dictionary entries of column '" + name + "' of type " + type.sql()
          + " are not decoded here");
    }
    return ArrowVecs.write(new SparkVecs(type).entries(dictionary), name, true, timeZone, allocator);
  }
}
