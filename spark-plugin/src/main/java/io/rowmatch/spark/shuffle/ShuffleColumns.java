package io.rowmatch.spark.shuffle;

import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

import io.rowmatch.spark.types.TypeSupport;

/**
 * How each column of the Arrow shuffle is laid out in a record (which columns it carries is
 * {@link TypeSupport#shuffleColumnReason}'s to say). The supported columns are the atomic types that arrow.ArrowSchemas maps to flat Arrow vectors: Bit,
 * fixed-width (TinyInt, SmallInt, Int, DateDay, BigInt, both microsecond timestamps, Float4, Float8,
 * 128-bit Decimal of any precision), 32-bit-offset variable width (VarChar, VarBinary) and Null. Nested
 * types (struct, array, map) and every other type stay on Spark's row shuffle.
 */
public final class ShuffleColumns {
  /** Column kinds of the record format (see {@link ShuffleFormat}). */
  static final int NULL = 0;
  static final int BIT = 1;
  static final int FIXED = 2;
  static final int VAR = 3;
  private static final int UNSUPPORTED = -1;

  private ShuffleColumns() {}

  /** Null when every column is supported, else a reason naming the first unsupported column and its type. */
  public static String unsupportedReason(StructType schema) {
    for (StructField f : schema.fields()) {
      String why = TypeSupport.shuffleColumnReason(f.dataType());
      if (why != null) {
        return "column " + f.name() + " of " + why;
      }
    }
    return null;
  }

  static int kindOf(DataType t) {
    if (t instanceof BooleanType) {
      return BIT;
    }
    if (widthOf(t) > 0) {
      return FIXED;
    }
    if (t instanceof StringType || t instanceof BinaryType) {
      return VAR;
    }
    if (t instanceof NullType) {
      return NULL;
    }
    return UNSUPPORTED;
  }

  /** Bytes per value of a fixed-width column, 0 for any other type. */
  static int widthOf(DataType t) {
    if (t instanceof ByteType) {
      return 1;
    } else if (t instanceof ShortType) {
      return 2;
    } else if (t instanceof IntegerType || t instanceof DateType || t instanceof FloatType) {
      return 4;
    } else if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType
        || t instanceof DoubleType) {
      return 8;
    } else if (t instanceof DecimalType) {
      return 16; // ArrowUtils maps every precision to a 128-bit Arrow Decimal
    }
    return 0;
  }

  /** Kinds of every column; IllegalArgumentException with the reason when the schema is not supported. */
  static int[] kinds(StructType schema) {
    String reason = unsupportedReason(schema);
    if (reason != null) {
      throw new IllegalArgumentException(reason);
    }
    StructField[] fields = schema.fields();
    int[] kinds = new int[fields.length];
    for (int c = 0; c < fields.length; c++) {
      kinds[c] = kindOf(fields[c].dataType());
    }
    return kinds;
  }

  static int[] widths(StructType schema) {
    StructField[] fields = schema.fields();
    int[] widths = new int[fields.length];
    for (int c = 0; c < fields.length; c++) {
      widths[c] = widthOf(fields[c].dataType());
    }
    return widths;
  }
}
