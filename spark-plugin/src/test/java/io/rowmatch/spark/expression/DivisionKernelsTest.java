package io.rowmatch.spark.expression;

import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Divide$;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Pmod$;
import org.apache.spark.sql.catalyst.expressions.Remainder$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.junit.jupiter.api.Test;
import scala.Enumeration;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * /, % and pmod against Spark's own Divide, Remainder and Pmod evaluated row by row (SparkDifferential): random batches of
 * sizes 0/1/63/64/65/300 with nulls, zero divisors (0, 0.0, -0.0), integral extremes (MIN % -1), NaN, infinities,
 * decimals at 10^p - 1, ANSI on (Spark's error, or, with the zero divisors removed, its values) and off.
 */
class DivisionKernelsTest extends AllocatorTest {
  static Enumeration.Value mode(boolean ansi) {
    return ansi ? EvalMode$.MODULE$.ANSI() : EvalMode$.MODULE$.LEGACY();
  }

  /** Spark's zero of a type, replaced by one (for ANSI rounds whose divisors must not be zero). */
  private static Object nonZero(Object v, DataType t) {
    if (v == null) {
      return null;
    }
    if (v instanceof Decimal d) {
      int scale = ((DecimalType) t).scale();
      return d.isZero() ? Decimal.apply(java.math.BigDecimal.valueOf(1, scale)) : d; // the smallest unit
    }
    if (v instanceof Double d) {
      return d == 0 ? 1.0 : d;
    }
    if (v instanceof Float f) {
      return f == 0 ? 1.0f : f;
    }
    if (((Number) v).longValue() == 0) {
      return v instanceof Byte ? (Object) (byte) 1 : v instanceof Short ? (Object) (short) 1
          : v instanceof Integer ? (Object) 1 : (Object) 1L;
    }
    return v;
  }

  /** Random rounds of {@code op(c0, c1)} over inputs of the given types, ANSI on and off. */
  static void rounds(BufferAllocator allocator, Random rnd, int count, DataType lt, DataType rt,
      java.util.function.BiFunction<Expression, Expression, Expression>[] ops) {
    DataType[] types = {lt, rt};
    for (int round = 0; round < count; round++) {
      int n = SparkDifferential.SIZES[rnd.nextInt(SparkDifferential.SIZES.length)];
      Object[][] rows = SparkDifferential.rows(rnd, n, types);
      boolean noZeros = rnd.nextBoolean();
      if (noZeros) {
        for (Object[] r : rows) {
          r[1] = nonZero(r[1], rt);
        }
      }
      Expression a = new BoundReference(0, lt, true);
      Expression b = new BoundReference(1, rt, true);
      for (var op : ops) {
        SparkDifferential.check(allocator, op.apply(a, b), types, rows, "UTC");
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static java.util.function.BiFunction<Expression, Expression, Expression>[] ops(boolean divide) {
    java.util.List<java.util.function.BiFunction<Expression, Expression, Expression>> out = new java.util.ArrayList<>();
    for (boolean ansi : new boolean[] {false, true}) {
      out.add((a, b) -> Remainder$.MODULE$.apply(a, b, mode(ansi)));
      if (divide) {
        out.add((a, b) -> Divide$.MODULE$.apply(a, b, mode(ansi)));
      }
    }
    return out.toArray(new java.util.function.BiFunction[0]);
  }

  @Test
  void integralAndFloatingRemainderAndFloatingDivisionEqualSparks() {
    Random rnd = new Random(41);
    for (DataType t : new DataType[] {DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType,
        DataTypes.LongType}) {
      rounds(allocator, rnd, 40, t, t, ops(false));
    }
    for (DataType t : new DataType[] {DataTypes.FloatType, DataTypes.DoubleType}) {
      rounds(allocator, rnd, 40, t, t, ops(true));
    }
  }

  @SuppressWarnings("unchecked")
  private static final java.util.function.BiFunction<Expression, Expression, Expression>[] PMODS =
      new java.util.function.BiFunction[] {
          (java.util.function.BiFunction<Expression, Expression, Expression>) (a, b) -> Pmod$.MODULE$.apply(a, b,
              mode(false)),
          (java.util.function.BiFunction<Expression, Expression, Expression>) (a, b) -> Pmod$.MODULE$.apply(a, b,
              mode(true))};

  @Test
  void integralAndFloatingPmodEqualsSparks() {
    Random rnd = new Random(53);
    for (DataType t : new DataType[] {DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType,
        DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType}) {
      rounds(allocator, rnd, 40, t, t, PMODS);
    }
  }

  /**
   * The sign rules and the edges by hand: negative dividends and divisors, MIN pmod -1, an int's r + n that wraps
   * (-1 pmod MIN), a byte's that does not (its sum is an int), -0.0, NaN, infinities, a float sum that rounds.
   */
  @Test
  void pmodEdgesEqualSparks() {
    Object[][] ints = {{-7, 3}, {7, -3}, {-7, -3}, {7, 3}, {0, -5}, {Integer.MIN_VALUE, -1}, {-1, Integer.MIN_VALUE},
        {Integer.MIN_VALUE, Integer.MIN_VALUE}, {Integer.MAX_VALUE, Integer.MIN_VALUE}, {-5, Integer.MAX_VALUE},
        {null, 3}, {3, null}, {-3, 0}};
    Object[][] longs = {{-7L, 3L}, {-1L, Long.MIN_VALUE}, {Long.MIN_VALUE, -1L}, {Long.MIN_VALUE + 1, Long.MAX_VALUE},
        {-1L, Long.MAX_VALUE}, {5L, 0L}};
    Object[][] bytes = {{(byte) -1, Byte.MIN_VALUE}, {Byte.MIN_VALUE, (byte) -1}, {(byte) -100, (byte) 127},
        {(byte) -7, (byte) 3}, {(byte) 1, (byte) 0}};
    Object[][] shorts = {{(short) -1, Short.MIN_VALUE}, {(short) -30000, Short.MAX_VALUE}, {Short.MIN_VALUE, (short) -1}};
    Object[][] doubles = {{-7.5, 2.0}, {7.5, -2.0}, {-0.0, 3.0}, {-3.0, -0.0}, {Double.NaN, 1.0}, {1.0, Double.NaN},
        {Double.NEGATIVE_INFINITY, 2.0}, {-1.0, Double.POSITIVE_INFINITY}, {-1e-300, 1e300}, {-2.0, 2.0}};
    Object[][] floats = {{-1e-8f, 1.0f}, {-7.5f, 2.0f}, {-0.0f, 3.0f}, {Float.NaN, 1.0f}, {-1.0f, 0.0f},
        {Float.NEGATIVE_INFINITY, 1.0f}, {-1.0f, Float.POSITIVE_INFINITY}, {-3.0e-7f, 16777216.0f}};
    Object[][][] cases = {ints, longs, bytes, shorts, doubles, floats};
    DataType[] types = {DataTypes.IntegerType, DataTypes.LongType, DataTypes.ByteType, DataTypes.ShortType,
        DataTypes.DoubleType, DataTypes.FloatType};
    for (int c = 0; c < cases.length; c++) {
      DataType t = types[c];
      Object[][] rows = cases[c];
      for (var op : PMODS) {
        Expression e = op.apply(new BoundReference(0, t, true), new BoundReference(1, t, true));
        SparkDifferential.check(allocator, e, new DataType[] {t, t}, rows, "UTC");
        // without the zero divisors, under ANSI too: every row's value (not the first row's error)
        Object[][] nonZero = java.util.Arrays.stream(rows).map(r -> new Object[] {r[0], nonZero(r[1], t)})
            .toArray(Object[][]::new);
        SparkDifferential.check(allocator, e, new DataType[] {t, t}, nonZero, "UTC");
      }
    }
  }

  /** Decimal pmod may need more digits than Spark's result type: planned as Spark's, with the reason. */
  @Test
  void decimalPmodStaysSparks() {
    DecimalType t = new DecimalType(9, 2);
    Expression e = Pmod$.MODULE$.apply(new BoundReference(0, t, true), new BoundReference(1, t, true), mode(false));
    org.junit.jupiter.api.Assertions.assertNull(ColumnarExpressions.compileBound(new Expression[] {e},
        new DataType[] {t, t}));
  }

  static final DecimalType[] DECIMALS = {new DecimalType(1, 0), new DecimalType(5, 2), new DecimalType(7, 2),
      new DecimalType(9, 2), new DecimalType(10, 0), new DecimalType(12, 6), new DecimalType(18, 4),
      new DecimalType(18, 0), new DecimalType(19, 0), new DecimalType(20, 10), new DecimalType(28, 2),
      new DecimalType(38, 10), new DecimalType(38, 0), new DecimalType(38, 37), new DecimalType(38, 38)};

  @Test
  void decimalDivisionAndRemainderEqualSparks() {
    Random rnd = new Random(43);
    for (DecimalType lt : DECIMALS) {
      for (DecimalType rt : DECIMALS) {
        rounds(allocator, rnd, 3, lt, rt, ops(true));
      }
    }
  }

  /** Quotients just below a half in the first dropped digit (Spark truncates at 39 digits, then rounds half up). */
  @Test
  void decimalDivisionNearHalvesEqualsSparks() {
    DecimalType lt = new DecimalType(18, 17);
    DecimalType rt = new DecimalType(18, 0);
    Random rnd = new Random(47);
    int n = 200;
    Object[][] rows = new Object[n][];
    for (int i = 0; i < n; i++) {
      // a / b with b near 10^17 and a = (k + 1/2) * b / 10^s - tiny: the exact quotient just below a half
      java.math.BigInteger b = java.math.BigInteger.TEN.pow(17).add(java.math.BigInteger.valueOf(rnd.nextInt(1000)));
      DecimalType ot = (DecimalType) Divide$.MODULE$.apply(new BoundReference(0, lt, true),
          new BoundReference(1, rt, true), mode(false)).dataType();
      java.math.BigDecimal half = java.math.BigDecimal.valueOf(2 * rnd.nextInt(9) + 1, ot.scale() + 1);
      java.math.BigDecimal a = half.multiply(new java.math.BigDecimal(b)).setScale(17, java.math.RoundingMode.DOWN)
          .subtract(java.math.BigDecimal.valueOf(rnd.nextInt(3), 17));
      if (a.precision() > 18) {
        a = java.math.BigDecimal.ONE;
      }
      rows[i] = new Object[] {Decimal.apply(rnd.nextBoolean() ? a : a.negate(), 18, 17), Decimal.apply(
          new java.math.BigDecimal(b), 18, 0)};
    }
    for (boolean ansi : new boolean[] {false, true}) {
      SparkDifferential.check(allocator, Divide$.MODULE$.apply(new BoundReference(0, lt, true),
          new BoundReference(1, rt, true), mode(ansi)), new DataType[] {lt, rt}, rows, "UTC");
    }
  }
}
