package io.rowmatch.spark.shim;

import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.util.ArrowUtils;

/**
 * The Spark 4.2 line's side of the shim layer: the only place where the plugin calls a Spark internal API whose
 * signature differs between the Spark lines it supports. The same class, with the same methods, sits in
 * src/main/spark-<line>/java for every line; the build compiles the one its -Pspark-<line> profile picks.
 */
public final class SparkLine {
  private SparkLine() {}

  /** A Spark type as an Arrow field through Spark's own mapping. Spark 4.2 added a trailing field-metadata parameter (a Scala default, so Java must pass it: empty). */
  public static Field toArrowField(String name, DataType type, boolean nullable, String timeZone) {
    return ArrowUtils.toArrowField(name, type, nullable, timeZone, false, Metadata.empty());
  }
}
