package io.rowmatch.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.spark.arrow.RandomSparkRows;
import io.rowmatch.spark.arrow.RowsToArrowBatches;

/**
 * The columnar partition ids equal Spark's own HashPartitioning expression (pmod(murmur3(keys), n)) on
 * every row, for every supported key type and combination, with nulls, empty and multibyte strings:
 * a Rowmatch exchange and a vanilla one must put each key in the same partition.
 */
class ColumnarPartitionIdsTest extends AllocatorTest {
  private static final String TZ = "UTC";

  /** The every-type schema's columns the columnar ids support. */
  private static List<Integer> supportedColumns(StructType schema) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < schema.fields().length; i++) {
      DataType t = schema.fields()[i].dataType();
      if (ColumnarPartitionIds.forKeys(new int[] {i}, new DataType[] {t}, 5) != null) {
        out.add(i);
      }
    }
    return out;
  }

  private static int[] sparkIds(ColumnarBatch batch, int[] keys, StructType schema, int numPartitions) {
    List<Expression> refs = new ArrayList<>();
    for (int k : keys) {
      refs.add(new BoundReference(k, schema.fields()[k].dataType(), true));
    }
    Expression pid = new HashPartitioning(CollectionConverters.asScala(refs).toList(), numPartitions)
        .partitionIdExpression();
    UnsafeProjection projection = UnsafeProjection.create(pid);
    int[] ids = new int[batch.numRows()];
    for (int r = 0; r < ids.length; r++) {
      ids[r] = projection.apply(batch.getRow(r)).getInt(0);
    }
    return ids;
  }

  @Test
  void equalsSparksHashPartitioningForEveryKeyTypeAndCombination() {
    StructType schema = RandomSparkRows.everyType(false);
    List<Integer> supported = supportedColumns(schema);
    assertEquals(12, supported.size(), "boolean, byte x2, short, int, long, string x2, binary, date, both timestamps: "
        + supported);
    Random rnd = new Random(7);
    int checkedRows = 0;
    for (int n : new int[] {0, 1, 63, 64, 65, 1000}) {
      try (RowsToArrowBatches batches = new RowsToArrowBatches(
          RandomSparkRows.rows(schema, n, n * 31L + 1, false).iterator(), schema, TZ, 4096, allocator,
          Long.MAX_VALUE)) {
        ColumnarBatch batch = batches.hasNext() ? batches.next() : null;
        if (batch == null) {
          assertEquals(0, n);
          continue;
        }
        for (int trial = 0; trial < 40; trial++) {
          int width = trial < supported.size() ? 1 : 1 + rnd.nextInt(4);
          int[] keys = new int[width];
          for (int k = 0; k < width; k++) {
            keys[k] = trial < supported.size() ? supported.get(trial) : supported.get(rnd.nextInt(supported.size()));
          }
          DataType[] types = new DataType[width];
          for (int k = 0; k < width; k++) {
            types[k] = schema.fields()[keys[k]].dataType();
          }
          for (int partitions : new int[] {1, 7, 200}) {
            ColumnarPartitionIds ours = ColumnarPartitionIds.forKeys(keys, types, partitions);
            assertNotNull(ours);
            int[] expected = sparkIds(batch, keys, schema, partitions);
            int[] actual = ours.of(batch);
            for (int r = 0; r < n; r++) {
              assertEquals(expected[r], actual[r], "row " + r + " keys " + java.util.Arrays.toString(keys)
                  + " partitions " + partitions);
            }
            checkedRows += n;
          }
        }
      }
    }
    assertTrue(checkedRows > 100_000, "rows compared: " + checkedRows);
  }

  @Test
  void keysOfOtherTypesAreLeftToSparksProjection() {
    for (DataType t : new DataType[] {DataTypes.DoubleType, DataTypes.FloatType, DataTypes.createDecimalType(10, 2),
        DataTypes.createArrayType(DataTypes.IntegerType), DataTypes.NullType}) {
      assertNull(ColumnarPartitionIds.forKeys(new int[] {0}, new DataType[] {t}, 4), t.simpleString());
    }
    assertNull(ColumnarPartitionIds.forKeys(new int[] {0, 1}, new DataType[] {DataTypes.LongType,
        DataTypes.DoubleType}, 4));
  }

  @Test
  void anOffsetPastTheDataBufferIsAnErrorNamingColumnAndRow() {
    try (VarCharVector v = new VarCharVector("s", allocator)) {
      v.allocateNew(64, 3);
      for (int i = 0; i < 3; i++) {
        v.setSafe(i, ("v" + i).getBytes(StandardCharsets.UTF_8));
      }
      v.setValueCount(3);
      v.getOffsetBuffer().setInt(4L * 2, 1 << 20); // row 1 ends (and row 2 starts) far past the data
      ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(v)}, 3);
      ColumnarPartitionIds ids = ColumnarPartitionIds.forKeys(new int[] {0},
          new DataType[] {DataTypes.StringType}, 4);
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> ids.of(batch));
      assertTrue(e.getMessage().contains("column 0") && e.getMessage().contains("row 1"), e.getMessage());
    }
  }
}
