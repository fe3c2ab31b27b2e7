package io.rowmatch.spark.expression;

import java.util.Random;

import org.apache.spark.sql.catalyst.expressions.BRound;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Round;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * round (HALF_UP) and bround (HALF_EVEN) against Spark's own Round and BRound row by row (SparkDifferential):
 * integral, float, double and decimal inputs (precisions 1..38, at 10^p - 1), scales from -18 to 40, ties,
 * NaN, infinities, -0.0, integral extremes (a negative scale's overflow wraps, or Spark's error under ANSI),
 * sizes 0/1/63/64/65/300.
 */
class RoundKernelsTest extends AllocatorTest {
  private static final int[] SCALES = {-18, -7, -3, -2, -1, 0, 1, 2, 3, 5, 9, 18, 40};

  @Test
  void roundAndBroundEqualSparks() {
    Random rnd = new Random(53);
    java.util.List<DataType> types = new java.util.ArrayList<>(java.util.List.of(DataTypes.ByteType,
        DataTypes.ShortType, DataTypes.IntegerType, DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType));
    types.addAll(java.util.List.of(DivisionKernelsTest.DECIMALS));
    for (DataType t : types) {
      for (int scale : SCALES) {
        if (t instanceof DecimalType d && d.scale() - scale > 38) {
          continue; // refused: every value rounds to 0, left to Spark
        }
        for (int round = 0; round < 3; round++) {
          int n = SparkDifferential.SIZES[rnd.nextInt(SparkDifferential.SIZES.length)];
          Object[][] rows = SparkDifferential.rows(rnd, n, t);
          Expression c = new BoundReference(0, t, true);
          Literal s = new Literal(scale, DataTypes.IntegerType);
          for (boolean ansi : new boolean[] {false, true}) {
            for (Expression e : new Expression[] {new Round(c, s, ansi), new BRound(c, s, ansi)}) {
              SparkDifferential.check(allocator, e, new DataType[] {t}, rows, "UTC");
            }
          }
        }
      }
    }
  }
}
