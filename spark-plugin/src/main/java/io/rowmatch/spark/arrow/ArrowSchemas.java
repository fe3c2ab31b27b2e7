package io.rowmatch.spark.arrow;

import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;

import io.rowmatch.spark.shim.SparkLine;

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
    return SparkLine.toArrowField(name, type, nullable, timeZone);
  }
}
