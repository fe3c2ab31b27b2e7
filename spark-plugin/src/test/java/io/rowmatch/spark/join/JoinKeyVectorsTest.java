package io.rowmatch.spark.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Upper;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;
import scala.Option;

/**
 * Computed join keys against a slow obvious reference: column keys are the batch's own vectors, computed keys
 * equal Spark's expression evaluated by hand (nulls propagate), for several batches through the reused
 * vectors, sizes 0, 1, 63, 64 and 65; nothing leaks.
 */
class JoinKeyVectorsTest {
  private static final StructType SIDE = new StructType(new StructField[] {
      new StructField("i", DataTypes.IntegerType, true, Metadata.empty()),
      new StructField("s", DataTypes.StringType, true, Metadata.empty())});

  @Test
  void columnAndComputedKeysOverSeveralBatches() {
    Expression castToLong = new Cast(new BoundReference(0, DataTypes.IntegerType, true), DataTypes.LongType,
        Option.apply("UTC"));
    Expression plusOne = new Add(castToLong, Literal.create(1L, DataTypes.LongType));
    Expression upper = new Upper(new BoundReference(1, DataTypes.StringType, true));
    Random rnd = new Random(7);
    try (BufferAllocator allocator = new RootAllocator();
        JoinKeyVectors keys = new JoinKeyVectors(new int[] {1, 2, 0, 3}, SIDE,
            new Expression[] {plusOne, upper}, "UTC", allocator)) {
      assertTrue(keys.computes());
      for (int n : new int[] {0, 1, 63, 64, 65, 3}) {
        try (IntVector i = new IntVector("i", allocator); VarCharVector s = new VarCharVector("s", allocator)) {
          Integer[] ints = new Integer[n];
          String[] strs = new String[n];
          i.allocateNew(n);
          s.allocateNew();
          for (int r = 0; r < n; r++) {
            ints[r] = rnd.nextInt(5) == 0 ? null : rnd.nextInt() % 1000;
            strs[r] = rnd.nextInt(5) == 0 ? null : new String[] {"", "aé", "Ab", "日本"}[rnd.nextInt(4)];
            if (ints[r] != null) {
              i.set(r, ints[r]);
            }
            if (strs[r] != null) {
              s.setSafe(r, strs[r].getBytes(StandardCharsets.UTF_8));
            }
          }
          i.setValueCount(n);
          s.setValueCount(n);
          ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(i),
              new ArrowColumnVector(s)}, n);
          List<ValueVector> out = keys.of(new ValueVector[] {i, s}, batch);
          assertEquals(4, out.size());
          assertSame(s, out.get(0));
          assertSame(i, out.get(2));
          BigIntVector computedLong = (BigIntVector) out.get(1);
          VarCharVector computedUpper = (VarCharVector) out.get(3);
          assertEquals(n, computedLong.getValueCount());
          assertEquals(n, computedUpper.getValueCount());
          for (int r = 0; r < n; r++) {
            if (ints[r] == null) {
              assertTrue(computedLong.isNull(r), "row " + r);
            } else {
              assertEquals(ints[r] + 1L, computedLong.get(r), "row " + r);
            }
            if (strs[r] == null) {
              assertTrue(computedUpper.isNull(r), "row " + r);
            } else {
              assertEquals(strs[r].toUpperCase(java.util.Locale.ROOT),
                  new String(computedUpper.get(r), StandardCharsets.UTF_8), "row " + r);
            }
          }
        }
      }
    }
  }

  /**
   * Keys the columnar kernels evaluate (cast, arithmetic, a decimal cast) give the same vectors as Spark's
   * projection: the same keys next to an unsupported one (upper) take Spark's row path.
   */
  @Test
  void kernelKeysEqualSparksProjection() {
    Expression i = new BoundReference(0, DataTypes.IntegerType, true);
    Expression plusOne = new Add(new Cast(i, DataTypes.LongType, Option.apply("UTC")),
        Literal.create(1L, DataTypes.LongType));
    Expression square = org.apache.spark.sql.catalyst.expressions.Multiply$.MODULE$.apply(i, i,
        org.apache.spark.sql.catalyst.expressions.EvalMode$.MODULE$.LEGACY()); // wraps
    Expression dec = new Cast(i, DataTypes.createDecimalType(12, 2), Option.apply("UTC"));
    Expression upper = new Upper(new BoundReference(1, DataTypes.StringType, true));
    Expression[] supported = {plusOne, square, dec};
    Expression[] withUpper = {plusOne, square, dec, upper};
    Random rnd = new Random(8);
    try (BufferAllocator allocator = new RootAllocator();
        JoinKeyVectors kernels = new JoinKeyVectors(new int[] {2, 3, 4}, SIDE, supported, "UTC", allocator);
        JoinKeyVectors spark = new JoinKeyVectors(new int[] {2, 3, 4}, SIDE, withUpper, "UTC", allocator)) {
      for (int n : new int[] {0, 1, 63, 64, 65, 500}) {
        try (IntVector iv = new IntVector("i", allocator); VarCharVector sv = new VarCharVector("s", allocator)) {
          iv.allocateNew(n);
          sv.allocateNew();
          for (int r = 0; r < n; r++) {
            if (rnd.nextInt(5) != 0) {
              iv.set(r, rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(2000) - 1000);
            }
          }
          iv.setValueCount(n);
          sv.setValueCount(n);
          ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(iv),
              new ArrowColumnVector(sv)}, n);
          ValueVector[] columns = {iv, sv};
          List<ValueVector> a = kernels.of(columns, batch);
          List<ValueVector> b = spark.of(columns, batch);
          for (int k = 0; k < 3; k++) {
            assertEquals(b.get(k).getClass(), a.get(k).getClass());
            for (int r = 0; r < n; r++) {
              assertEquals(b.get(k).getObject(r), a.get(k).getObject(r), "key " + k + " row " + r);
            }
          }
        }
      }
    }
  }

  @Test
  void onlyColumnKeysAllocateNothing() {
    try (BufferAllocator allocator = new RootAllocator();
        JoinKeyVectors keys = new JoinKeyVectors(new int[] {0}, SIDE, new Expression[0], "UTC", allocator);
        IntVector i = new IntVector("i", allocator); VarCharVector s = new VarCharVector("s", allocator)) {
      long before = allocator.getAllocatedMemory();
      i.allocateNew(1);
      i.setValueCount(1);
      s.allocateNew();
      s.setValueCount(1);
      ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(i),
          new ArrowColumnVector(s)}, 1);
      assertSame(i, keys.of(new ValueVector[] {i, s}, batch).get(0));
      assertEquals(before, 0);
    }
  }
}
