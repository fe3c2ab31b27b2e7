package io.rowmatch.spark.arrow;

import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
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
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.util.ArrowUtils;

/**
 * Spark types to Arrow fields, always through Spark's own mapping (ArrowUtils), so that the vectors we build
 * are exactly the ones Spark's ArrowColumnVector and ArrowWriter expect.
 */
public final class ArrowSchemas {
  private ArrowSchemas() {}

  public static Schema toArrow(StructType schema, String timeZone) {
    return ArrowUtils.toArrowSchema(schema, timeZone, false, false);
  }

  public static Field toArrow(String name, DataType type, boolean nullable, String timeZone) {
    return ArrowUtils.toArrowField(name, type, nullable, timeZone, false);
  }

  /**
   * Why a column of this type cannot travel in our Arrow batches, or null when it can. Only types whose
   * round trip through ArrowWriter and ArrowColumnVector is exact are admitted.
   */
  public static String unsupportedReason(DataType type) {
    if (type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
        || type instanceof IntegerType || type instanceof LongType || type instanceof FloatType
        || type instanceof DoubleType || type instanceof DecimalType || type instanceof BinaryType
        || type instanceof DateType || type instanceof TimestampType || type instanceof TimestampNTZType
        || type instanceof NullType) {
      return null;
    }
    if (type instanceof StringType) {
      return null;
    }
    if (type instanceof ArrayType a) {
      return unsupportedReason(a.elementType());
    }
    if (type instanceof MapType m) {
      String k = unsupportedReason(m.keyType());
      return k != null ? k : unsupportedReason(m.valueType());
    }
    if (type instanceof StructType s) {
      for (StructField f : s.fields()) {
        String r = unsupportedReason(f.dataType());
        if (r != null) {
          return r;
        }
      }
      return null;
    }
    return "type " + type.simpleString() + " is not converted to Arrow";
  }
}
