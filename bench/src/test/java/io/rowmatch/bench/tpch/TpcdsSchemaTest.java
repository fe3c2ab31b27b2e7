package io.rowmatch.bench.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.trino.tpcds.Table;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class TpcdsSchemaTest {
  @Test
  void everySparkTableAndColumnHasItsGeneratorColumn() {
    Map<String, StructType> tables = TpcdsSchema.tables();
    assertEquals(24, tables.size(), tables.keySet().toString());
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, StructType> table : tables.entrySet()) {
      try {
        int[] positions = TpcdsSchema.generatorPositions(table.getKey(), table.getValue());
        assertEquals(table.getValue().fields().length, positions.length);
      } catch (IllegalStateException e) {
        problems.add(e.getMessage());
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  @Test
  void sparkTypesKeepDecimalsAndDatesAndMakeCharsStrings() {
    StructType sales = TpcdsSchema.tables().get("store_sales");
    assertEquals(DataTypes.IntegerType, sales.apply("ss_item_sk").dataType());
    assertEquals(DataTypes.createDecimalType(7, 2), sales.apply("ss_net_paid").dataType());
    StructType dates = TpcdsSchema.tables().get("date_dim");
    assertEquals(DataTypes.DateType, dates.apply("d_date").dataType());
    assertEquals(DataTypes.StringType, dates.apply("d_day_name").dataType()); // CHAR(9) in Spark's DDL
    for (StructType schema : TpcdsSchema.tables().values()) {
      for (StructField field : schema.fields()) {
        assertTrue(field.nullable(), field.name());
        assertTrue(field.metadata().json().equals("{}"), field.name() + " keeps char metadata " + field.metadata());
        assertTrue(field.dataType() == DataTypes.IntegerType || field.dataType() == DataTypes.StringType
            || field.dataType() == DataTypes.DateType || field.dataType() instanceof DecimalType, field.toString());
      }
    }
  }

  /** Chunks are ranges of row numbers; every table generated in chunks must give the rows of one piece. */
  @Test
  void chunkedGenerationEqualsGenerationInOnePiece() {
    double sf = 0.01;
    for (String name : List.of("store_sales", "store_returns", "web_sales", "inventory", "date_dim", "item")) {
      Table table = Table.getTable(name);
      StructType schema = TpcdsSchema.tables().get(name);
      int[] positions = TpcdsSchema.generatorPositions(name, schema);
      long rows = TpcdsDataGenerator.chunks(table, sf).stream().mapToLong(c -> c[1] - c[0] + 1).sum();
      List<String> whole = new ArrayList<>();
      TpcdsDataGenerator.generate(name, sf, new long[] {1, rows}, schema, positions)
          .forEachRemaining(r -> whole.add(r.toString()));
      List<String> pieces = new ArrayList<>();
      for (long[] chunk : TpcdsDataGenerator.forcedChunks(table, sf, 3)) {
        TpcdsDataGenerator.generate(name, sf, chunk, schema, positions).forEachRemaining(r -> pieces.add(r.toString()));
      }
      assertEquals(whole.size(), pieces.size(), name);
      assertEquals(whole, pieces, name + " differs when generated in chunks");
    }
  }
}
