package io.rowmatch.bench.tpch;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.trino.tpcds.Table;
import io.trino.tpcds.column.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.TPCDSSchema;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.VarcharType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The TPC-DS tables with Spark's column types: the DDL of Spark's own {@code TPCDSSchema} (from the spark-sql
 * test jar, unpacked by the build; INT keys and integers, DECIMAL(p,s) money, DATE), except that CHAR(n) and VARCHAR(n) are plain
 * strings: the generator's values are unpadded, and Spark's char semantics (read-side padding) apply to
 * catalog tables only, not to Parquet files read as views. Columns are matched to trino-tpcds's by name.
 * Tables are not partitioned (Spark's schema partitions the fact tables by date key; at SF 1 that is
 * thousands of tiny files per table, which measures file listing rather than joins).
 */
public final class TpcdsSchema {
  /**
   * Spark's column name -> trino-tpcds's, where they differ: trino keeps the names of dsdgen's sources
   * (c_last_review_date_sk, and the typos p_response_targe, s_tax_precentage); Spark's schema, and so its
   * queries, use the corrected names.
   */
  static final Map<String, String> GENERATOR_NAMES = Map.of(
      "c_last_review_date", "c_last_review_date_sk",
      "p_response_target", "p_response_targe",
      "s_tax_percentage", "s_tax_precentage");

  private TpcdsSchema() {}

  /** Spark's Scala trait, implemented as Scala 2.13 compiles a class mixing it in: fields set by $init$. */
  private static final class SparkDdl implements TPCDSSchema {
    private scala.collection.immutable.Map<String, String> tableColumns;
    private scala.collection.immutable.Map<String, scala.collection.immutable.Seq<String>> partitionColumns;

    SparkDdl() {
      TPCDSSchema.$init$(this);
    }

    @Override
    public void org$apache$spark$sql$TPCDSSchema$_setter_$tableColumns_$eq(
        scala.collection.immutable.Map<String, String> value) {
      tableColumns = value;
    }

    @Override
    public void org$apache$spark$sql$TPCDSSchema$_setter_$tablePartitionColumns_$eq(
        scala.collection.immutable.Map<String, scala.collection.immutable.Seq<String>> value) {
      partitionColumns = value;
    }

    @Override
    public scala.collection.immutable.Map<String, String> tableColumns() {
      return tableColumns;
    }

    @Override
    public scala.collection.immutable.Map<String, scala.collection.immutable.Seq<String>> tablePartitionColumns() {
      return partitionColumns;
    }
  }

  /** Every table of Spark's schema, by name (sorted, so generation order is fixed). */
  public static Map<String, StructType> tables() {
    scala.collection.Map<String, String> ddl = new SparkDdl().tableColumns();
    Map<String, StructType> tables = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : new TreeMap<>(CollectionConverters.asJava(ddl)).entrySet()) {
      tables.put(entry.getKey(), sparkTypes(StructType.fromDDL(entry.getValue())));
    }
    return tables;
  }

  static StructType sparkTypes(StructType declared) {
    List<StructField> fields = new ArrayList<>();
    for (StructField field : declared.fields()) {
      DataType type = field.dataType();
      if (type instanceof CharType || type instanceof VarcharType || type == DataTypes.StringType) {
        type = DataTypes.StringType; // also drops the char/varchar metadata a parser may leave on a string
      }
      fields.add(DataTypes.createStructField(field.name(), type, true));
    }
    return DataTypes.createStructType(fields);
  }

  /** For each Spark column, the position of trino-tpcds's column of that name; fails on any mismatch. */
  static int[] generatorPositions(String tableName, StructType schema) {
    Table table = Table.getTable(tableName);
    Map<String, Integer> positions = new LinkedHashMap<>();
    for (Column column : table.getColumns()) {
      positions.put(column.getName(), column.getPosition());
    }
    int[] result = new int[schema.fields().length];
    for (int i = 0; i < result.length; i++) {
      String name = schema.fields()[i].name();
      Integer position = positions.get(GENERATOR_NAMES.getOrDefault(name, name));
      if (position == null) {
        throw new IllegalStateException("TPC-DS table " + tableName + ": Spark's column " + schema.fields()[i].name()
            + " has no trino-tpcds column of that name (it has " + positions.keySet() + ")");
      }
      result[i] = position;
    }
    if (positions.size() != result.length) {
      throw new IllegalStateException("TPC-DS table " + tableName + ": Spark declares " + result.length
          + " columns, trino-tpcds generates " + positions.size() + " " + positions.keySet());
    }
    return result;
  }

  /** One generated row (trino-tpcds's text values; null is SQL NULL) as a row of {@code schema}. */
  static Row toRow(List<String> generated, StructType schema, int[] positions) {
    StructField[] fields = schema.fields();
    Object[] values = new Object[fields.length];
    for (int i = 0; i < fields.length; i++) {
      String text = generated.get(positions[i]);
      values[i] = text == null ? null : value(fields[i], text);
    }
    return RowFactory.create(values);
  }

  private static Object value(StructField field, String text) {
    DataType type = field.dataType();
    try {
      if (type == DataTypes.IntegerType) {
        return Integer.parseInt(text);
      }
      if (type instanceof DecimalType decimal) {
        return new BigDecimal(text).setScale(decimal.scale()); // exact: throws if digits would be lost
      }
      if (type == DataTypes.DateType) {
        return LocalDate.parse(text);
      }
      if (type == DataTypes.StringType) {
        return text;
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("TPC-DS column " + field.name() + " (" + type.simpleString()
          + "): cannot read the generated value '" + text + "'", e);
    }
    throw new IllegalArgumentException("TPC-DS column " + field.name() + " has a type the generator does not"
        + " fill: " + type.simpleString());
  }
}
