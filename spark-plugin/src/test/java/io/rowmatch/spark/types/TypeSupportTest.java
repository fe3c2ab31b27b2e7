package io.rowmatch.spark.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.VarcharType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.junit.jupiter.api.Test;

import io.rowmatch.spark.shuffle.ShuffleColumns;

/**
 * Every Spark type against every rule of {@link TypeSupport}: the whole table is pinned here, so a change to
 * what Rowmatch supports is a visible change to this test; and the README's types table is the generated one.
 */
class TypeSupportTest {
  private static Map<String, DataType> everyType() {
    Map<String, DataType> t = new LinkedHashMap<>();
    t.put("boolean", DataTypes.BooleanType);
    t.put("tinyint", DataTypes.ByteType);
    t.put("smallint", DataTypes.ShortType);
    t.put("int", DataTypes.IntegerType);
    t.put("bigint", DataTypes.LongType);
    t.put("float", DataTypes.FloatType);
    t.put("double", DataTypes.DoubleType);
    t.put("decimal(9,2)", new DecimalType(9, 2));
    t.put("decimal(38,18)", new DecimalType(38, 18));
    t.put("string", DataTypes.StringType);
    t.put("string collate UTF8_LCASE", StringType.apply("UTF8_LCASE"));
    t.put("char(3)", CharType.apply(3));
    t.put("varchar(3)", VarcharType.apply(3));
    t.put("binary", DataTypes.BinaryType);
    t.put("date", DataTypes.DateType);
    t.put("timestamp", DataTypes.TimestampType);
    t.put("timestamp_ntz", DataTypes.TimestampNTZType);
    t.put("void", DataTypes.NullType);
    t.put("interval", DataTypes.CalendarIntervalType);
    t.put("interval day to second", DayTimeIntervalType.apply());
    t.put("interval year to month", YearMonthIntervalType.apply());
    t.put("variant", org.apache.spark.sql.types.VariantType$.MODULE$);
    t.put("struct<a:int,b:string>", new StructType().add("a", DataTypes.IntegerType).add("b", DataTypes.StringType));
    t.put("struct<f:double>", new StructType().add("f", DataTypes.DoubleType));
    t.put("struct<n:void>", new StructType().add("n", DataTypes.NullType));
    t.put("struct<i:interval>", new StructType().add("i", DataTypes.CalendarIntervalType));
    t.put("array<int>", new ArrayType(DataTypes.IntegerType, true));
    t.put("array<string collate UTF8_LCASE>", new ArrayType(StringType.apply("UTF8_LCASE"), true));
    t.put("array<array<float>>", new ArrayType(new ArrayType(DataTypes.FloatType, true), true));
    t.put("map<int,string>", new MapType(DataTypes.IntegerType, DataTypes.StringType, true));
    t.put("map<string,double>", new MapType(DataTypes.StringType, DataTypes.DoubleType, true));
    t.put("array<map<int,int>>", new ArrayType(new MapType(DataTypes.IntegerType, DataTypes.IntegerType, true), true));
    t.put("map<int,void>", new MapType(DataTypes.IntegerType, DataTypes.NullType, true));
    return t;
  }

  private static String mark(String reason) {
    return reason == null ? "yes" : "no: " + reason;
  }

  @Test
  void everyTypeAgainstEveryRule() {
    List<String> rows = new ArrayList<>();
    for (Map.Entry<String, DataType> e : everyType().entrySet()) {
      DataType t = e.getValue();
      rows.add(e.getKey() + " | arrow " + mark(TypeSupport.arrowColumnReason(t)) + " | group " + mark(TypeSupport.groupKeyReason(t))
          + " | join " + mark(TypeSupport.joinKeyReason(t)) + " | joinColumn " + mark(TypeSupport.joinColumnReason(t))
          + " | shuffle " + mark(ShuffleColumns.unsupportedReason(new StructType().add("c", t)))
          + " | floating " + TypeSupport.containsFloating(t));
    }
    assertEquals(EXPECTED, String.join("\n", rows));
  }

  @Test
  void readmeTypesTableIsTheGeneratedOne() throws IOException {
    String readme = Files.readString(Path.of(System.getProperty("user.dir")).resolveSibling("README.md"));
    String table = TypeSupport.describe();
    assertTrue(readme.contains(table), "README.md should hold the types table TypeSupport.describe() gives:\n" + table);
  }

  /** The whole table; the same as the type checks gave before they were gathered here. */
  private static final String EXPECTED = String.join("\n",
      "boolean | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "tinyint | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "smallint | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "int | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "bigint | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "float | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating true",
      "double | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating true",
      "decimal(9,2) | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "decimal(38,18) | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "string | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "string collate UTF8_LCASE | arrow yes | group no: collation UTF8_LCASE does not compare bytes | join no: collation UTF8_LCASE does not compare bytes | joinColumn yes | shuffle yes | floating false",
      "char(3) | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "varchar(3) | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "binary | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "date | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "timestamp | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "timestamp_ntz | arrow yes | group yes | join yes | joinColumn yes | shuffle yes | floating false",
      "void | arrow yes | group yes | join no: null-typed keys are not supported | joinColumn no: null-typed columns are not supported | shuffle yes | floating false",
      "interval | arrow no: type interval is not converted to Arrow | group no: key type interval is not supported | join no: key type interval is not supported | joinColumn no: type interval is not converted to Arrow | shuffle no: column c of type interval is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "interval day to second | arrow no: type interval day to second is not converted to Arrow | group no: key type interval day to second is not supported | join no: key type interval day to second is not supported | joinColumn no: type interval day to second is not converted to Arrow | shuffle no: column c of type interval day to second is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "interval year to month | arrow no: type interval year to month is not converted to Arrow | group no: key type interval year to month is not supported | join no: key type interval year to month is not supported | joinColumn no: type interval year to month is not converted to Arrow | shuffle no: column c of type interval year to month is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "variant | arrow no: type variant is not converted to Arrow | group no: key type variant is not supported | join no: key type variant is not supported | joinColumn no: type variant is not converted to Arrow | shuffle no: column c of type variant is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "struct<a:int,b:string> | arrow yes | group yes | join yes | joinColumn yes | shuffle no: column c of type struct<a:int,b:string> is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "struct<f:double> | arrow yes | group yes | join yes | joinColumn yes | shuffle no: column c of type struct<f:double> is not supported by the Arrow shuffle (only flat atomic types are) | floating true",
      "struct<n:void> | arrow yes | group yes | join no: null-typed keys are not supported | joinColumn no: null-typed columns are not supported | shuffle no: column c of type struct<n:void> is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "struct<i:interval> | arrow no: type interval is not converted to Arrow | group no: key type interval is not supported | join no: key type interval is not supported | joinColumn no: type interval is not converted to Arrow | shuffle no: column c of type struct<i:interval> is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "array<int> | arrow yes | group yes | join yes | joinColumn yes | shuffle no: column c of type array<int> is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "array<string collate UTF8_LCASE> | arrow yes | group no: collation UTF8_LCASE does not compare bytes | join no: collation UTF8_LCASE does not compare bytes | joinColumn yes | shuffle no: column c of type array<string collate UTF8_LCASE> is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "array<array<float>> | arrow yes | group yes | join yes | joinColumn yes | shuffle no: column c of type array<array<float>> is not supported by the Arrow shuffle (only flat atomic types are) | floating true",
      "map<int,string> | arrow yes | group no: key type map<int,string> is not supported | join no: map keys are not supported | joinColumn yes | shuffle no: column c of type map<int,string> is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "map<string,double> | arrow yes | group no: key type map<string,double> is not supported | join no: map keys are not supported | joinColumn yes | shuffle no: column c of type map<string,double> is not supported by the Arrow shuffle (only flat atomic types are) | floating true",
      "array<map<int,int>> | arrow yes | group no: key type map<int,int> is not supported | join no: map keys are not supported | joinColumn yes | shuffle no: column c of type array<map<int,int>> is not supported by the Arrow shuffle (only flat atomic types are) | floating false",
      "map<int,void> | arrow yes | group no: key type map<int,void> is not supported | join no: map keys are not supported | joinColumn no: null-typed columns are not supported | shuffle no: column c of type map<int,void> is not supported by the Arrow shuffle (only flat atomic types are) | floating false");
}
