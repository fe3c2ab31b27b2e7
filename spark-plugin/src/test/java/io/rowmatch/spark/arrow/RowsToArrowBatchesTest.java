package io.rowmatch.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
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
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.ArrayEquals;
import io.rowmatch.core.testing.AllocatorTest;

/**
 * Differential: the batches RowsToArrowBatches builds must equal, vector for vector, what Spark's own
 * ArrowWriter builds from the same rows (generic rows and UnsafeRows, every type the plugin carries).
 */
class RowsToArrowBatchesTest extends AllocatorTest {
  private static final String TZ = "UTC";


  private int assertSameAsSparkWriter(StructType schema, List<InternalRow> rows, int batchSize) {
    try (RowsToArrowBatches ours = new RowsToArrowBatches(rows.iterator(), schema, TZ, batchSize, allocator,
        Long.MAX_VALUE)) {
      return SparkWriterOracle.assertSameAsSparkWriter(allocator, schema, rows, batchSize, ours);
    }
  }

  @Test
  void everyTypeMatchesSparksArrowWriterAtBatchBoundaries() {
    StructType schema = RandomSparkRows.everyType(true);
    int[] sizes = {0, 1, 63, 64, 65, 200};
    for (boolean unsafe : new boolean[] {false, true}) {
      for (int n : sizes) {
        int batches = assertSameAsSparkWriter(schema, RandomSparkRows.rows(schema, n, 31L * n + (unsafe ? 1 : 0), unsafe), 64);
        assertEquals((n + 63) / 64, batches, "batches for " + n + " rows");
      }
    }
  }

  @Test
  void longStringsGrowTheDataBufferWithinOneBatch() {
    StructType schema = new StructType().add("id", DataTypes.LongType).add("s", DataTypes.StringType)
        .add("b", DataTypes.BinaryType);
    Random r = new Random(7);
    UnsafeProjection toUnsafe = UnsafeProjection.create(schema);
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      String s = "x".repeat(r.nextInt(3) == 0 ? 5000 : r.nextInt(40)) + "é" + i;
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      InternalRow row = new GenericInternalRow(new Object[] {(long) i, UTF8String.fromString(s), b});
      rows.add(i % 2 == 0 ? toUnsafe.apply(row).copy() : row);
    }
    assertEquals(3, assertSameAsSparkWriter(schema, rows, 128));
  }

  @Test
  void allNullColumnsAndAllValidColumns() {
    StructType schema = new StructType().add("a", DataTypes.IntegerType).add("s", DataTypes.StringType)
        .add("d", DataTypes.createDecimalType(12, 4)).add("f", DataTypes.BooleanType);
    UnsafeProjection toUnsafe = UnsafeProjection.create(schema);
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < 130; i++) {
      Object[] v = i < 65 ? new Object[4]
          : new Object[] {i, UTF8String.fromString(""), Decimal.apply(i), i % 3 == 0};
      rows.add(toUnsafe.apply(new GenericInternalRow(v)).copy());
    }
    assertEquals(3, assertSameAsSparkWriter(schema, rows, 64));
  }

  @Test
  void aDecimalThatDoesNotFitTheColumnIsNullAsInSpark() {
    // A generic row may carry a Decimal of more digits than its column; Spark's ArrowWriter writes null.
    StructType schema = new StructType().add("d", DataTypes.createDecimalType(5, 2))
        .add("w", DataTypes.createDecimalType(20, 2));
    List<InternalRow> rows = new ArrayList<>();
    rows.add(new GenericInternalRow(new Object[] {Decimal.apply(new BigDecimal("123456.78")),
        Decimal.apply(new BigDecimal("1234567890123456789012.5"))}));
    rows.add(new GenericInternalRow(new Object[] {Decimal.apply(new BigDecimal("-1.5")),
        Decimal.apply(new BigDecimal("-7.25"))}));
    assertSameAsSparkWriter(schema, rows, 8);
    try (RowsToArrowBatches ours = new RowsToArrowBatches(rows.iterator(), schema, TZ, 8, allocator,
        Long.MAX_VALUE)) {
      ColumnarBatch b = ours.next();
      assertTrue(b.column(0).isNullAt(0));
      assertTrue(b.column(1).isNullAt(0));
      assertEquals(new BigDecimal("-1.50"), b.column(0).getDecimal(1, 5, 2).toJavaBigDecimal());
      assertEquals(new BigDecimal("-7.25"), b.column(1).getDecimal(1, 20, 2).toJavaBigDecimal());
    }
  }

  @Test
  void aMemoryLimitTooSmallForOneBatchNamesTheSettingAndLeavesNothingAllocated() {
    StructType schema = new StructType();
    for (int c = 0; c < 40; c++) {
      schema = schema.add("c" + c, DataTypes.LongType);
    }
    try (BufferAllocator limited = allocator.newChildAllocator("task", 0, 1 << 20)) {
      StructType s = schema;
      RuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
          () -> new RowsToArrowBatches(RandomSparkRows.rows(s, 10, 1, true).iterator(), s, TZ, 8192, limited,
              1 << 20));
      assertTrue(e.getMessage().contains("spark.rowmatch.memory.limit"), e.getMessage());
      assertEquals(0, limited.getAllocatedMemory(), "buffers left allocated after the failed start");
    }
  }
}
