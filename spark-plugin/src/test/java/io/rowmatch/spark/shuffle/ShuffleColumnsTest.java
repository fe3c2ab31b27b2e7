package io.rowmatch.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.junit.jupiter.api.Test;

import io.rowmatch.spark.arrow.ArrowSchemas;

class ShuffleColumnsTest {
  @Test
  void everyFlatAtomicTypeIsSupported() {
    assertNull(ShuffleColumns.unsupportedReason(ShuffleTestSupport.flatEveryType()));
    assertNull(ShuffleColumns.unsupportedReason(new StructType()));
  }

  @Test
  void theReasonNamesTheFirstUnsupportedColumnAndItsType() {
    StructType schema = new StructType().add("id", DataTypes.LongType)
        .add("tags", DataTypes.createArrayType(DataTypes.StringType))
        .add("m", DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType));
    assertEquals("column tags of type array<string> is not supported by the Arrow shuffle (only flat atomic types are)",
        ShuffleColumns.unsupportedReason(schema));
    assertEquals("column s of type struct<a:int> is not supported by the Arrow shuffle (only flat atomic types are)",
        ShuffleColumns.unsupportedReason(new StructType().add("s", new StructType().add("a", DataTypes.IntegerType))));
    String interval = ShuffleColumns.unsupportedReason(new StructType().add("i", DayTimeIntervalType.apply()));
    assertEquals("column i of type interval day to second is not supported by the Arrow shuffle (only flat atomic types are)",
        interval);
    assertEquals("column y of type interval year to month is not supported by the Arrow shuffle (only flat atomic types are)",
        ShuffleColumns.unsupportedReason(new StructType().add("y", YearMonthIntervalType.apply())));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new PartitionedBatchEncoder(schema));
    assertEquals(ShuffleColumns.unsupportedReason(schema), e.getMessage());
  }

  /** The format's widths must be the Arrow vectors' (what ArrowSchemas maps each type to). */
  @Test
  void kindsAndWidthsMatchTheArrowTypesArrowSchemasProduces() {
    StructType schema = ShuffleTestSupport.flatEveryType();
    int[] kinds = ShuffleColumns.kinds(schema);
    int[] widths = ShuffleColumns.widths(schema);
    StructField[] fields = schema.fields();
    for (int c = 0; c < fields.length; c++) {
      Field arrow = ArrowSchemas.toArrow(fields[c].name(), fields[c].dataType(), true, "UTC");
      String type = arrow.getType().getTypeID().name();
      switch (kinds[c]) {
        case ShuffleColumns.NULL -> assertEquals("Null", type);
        case ShuffleColumns.BIT -> assertEquals("Bool", type);
        case ShuffleColumns.VAR -> assertEquals(true, type.equals("Utf8") || type.equals("Binary"), type);
        default -> {
          int bits = switch (type) {
            case "Int" -> ((org.apache.arrow.vector.types.pojo.ArrowType.Int) arrow.getType()).getBitWidth();
            case "FloatingPoint" -> ((org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint) arrow.getType())
                .getPrecision().name().equals("SINGLE") ? 32 : 64;
            case "Decimal" -> ((org.apache.arrow.vector.types.pojo.ArrowType.Decimal) arrow.getType()).getBitWidth();
            case "Date", "Timestamp" -> type.equals("Date") ? 32 : 64;
            default -> throw new AssertionError(type);
          };
          assertEquals(bits / 8, widths[c], fields[c].name() + " " + type);
        }
      }
    }
  }
}
