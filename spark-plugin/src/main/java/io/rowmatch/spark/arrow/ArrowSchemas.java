package io.rowmatch.spark.arrow;

import java.util.List;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.shim.SparkLine;

/**
 * Spark types to Arrow fields, always through Spark's own mapping (ArrowUtils), so that the vectors we build
 * are exactly the ones Spark's ArrowColumnVector and ArrowWriter expect; and Spark's batch over such vectors.
 */
public final class ArrowSchemas {
  private ArrowSchemas() {}

  public static Schema toArrow(StructType schema, String timeZone) {
    return ArrowUtils.toArrowSchema(schema, timeZone, false, false);
  }

  public static Field toArrow(String name, DataType type, boolean nullable, String timeZone) {
    return SparkLine.toArrowField(name, type, nullable, timeZone);
  }

  /** A Spark batch (of 0 rows until set) reading the vectors through ArrowColumnVector. */
  public static ColumnarBatch sparkBatch(List<FieldVector> vectors) {
    ColumnVector[] columns = new ColumnVector[vectors.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new ArrowColumnVector(vectors.get(i));
    }
    return new ColumnarBatch(columns);
  }
}
