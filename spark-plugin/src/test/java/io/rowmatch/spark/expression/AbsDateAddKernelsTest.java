package io.rowmatch.spark.expression;

import java.util.Random;

import org.apache.spark.sql.catalyst.expressions.Abs;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.DateAdd;
import org.apache.spark.sql.catalyst.expressions.DateSub;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * abs, date_add and date_sub against Spark's own Abs, DateAdd and DateSub evaluated row by row (SparkDifferential):
 * random batches of sizes 0/1/63/64/65/300 with nulls, integral MIN/MAX (ANSI: Spark's overflow error; off: the
 * wrap), -0.0, NaN, infinities, decimals of precision 9/18/19/38 at 10^p - 1, dates at the int extremes, before
 * 1970 and far ahead, days of every integral width.
 */
class AbsDateAddKernelsTest extends AllocatorTest {
  private static final DataType[] NUMERIC = {DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType,
      DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType, DataTypes.createDecimalType(9, 2),
      DataTypes.createDecimalType(18, 0), DataTypes.createDecimalType(19, 4), DataTypes.createDecimalType(38, 10),
      DataTypes.createDecimalType(38, 0)};

  @Test
  void absEqualsSparks() {
    Random rnd = new Random(3);
    for (DataType t : NUMERIC) {
      DataType[] types = {t};
      Expression c = new BoundReference(0, t, true);
      // nested: the inner result's MIN (non-ANSI) goes through abs again
      SparkDifferential.checkRandom(allocator, rnd, 12, types, java.util.List.of(new Abs(c, false),
          new Abs(new Abs(c, false), false), new Abs(c, true), new Abs(new Abs(c, true), true)));
    }
  }

  /** The edges by hand, each in a one-row batch so an ANSI error on one does not hide the others' values. */
  @Test
  void absEdgesEqualSparks() {
    Object[][] cases = {
        {DataTypes.ByteType, Byte.MIN_VALUE}, {DataTypes.ByteType, (byte) -1}, {DataTypes.ByteType, Byte.MAX_VALUE},
        {DataTypes.ShortType, Short.MIN_VALUE}, {DataTypes.ShortType, (short) -7},
        {DataTypes.IntegerType, Integer.MIN_VALUE}, {DataTypes.IntegerType, Integer.MIN_VALUE + 1},
        {DataTypes.IntegerType, Integer.MAX_VALUE}, {DataTypes.LongType, Long.MIN_VALUE},
        {DataTypes.LongType, -Long.MAX_VALUE}, {DataTypes.LongType, 0L},
        {DataTypes.FloatType, -0.0f}, {DataTypes.FloatType, Float.NaN}, {DataTypes.FloatType, Float.NEGATIVE_INFINITY},
        {DataTypes.DoubleType, -0.0}, {DataTypes.DoubleType, Double.NaN}, {DataTypes.DoubleType, -Double.MIN_VALUE},
        {DataTypes.DoubleType, Double.longBitsToDouble(0xfff8000000000001L)}, // a NaN with the sign bit set
        {DataTypes.createDecimalType(38, 0), Decimal.apply(new java.math.BigDecimal("-" + "9".repeat(38)))},
        {DataTypes.createDecimalType(38, 2), Decimal.apply(new java.math.BigDecimal("-" + "9".repeat(34) + ".99"))},
        {DataTypes.createDecimalType(19, 0), Decimal.apply(new java.math.BigDecimal("-" + "9".repeat(19)))},
        {DataTypes.createDecimalType(18, 3), Decimal.apply(new java.math.BigDecimal("-" + "9".repeat(15) + ".999"))},
        {DataTypes.createDecimalType(9, 9), Decimal.apply(new java.math.BigDecimal("-0." + "9".repeat(9)))}};
    for (Object[] k : cases) {
      DataType t = (DataType) k[0];
      Object v = k[1] instanceof Decimal d ? Decimal.apply(d.toJavaBigDecimal(), ((DecimalType) t).precision(),
          ((DecimalType) t).scale()) : k[1];
      DataType[] types = {t};
      Expression c = new BoundReference(0, t, true);
      Object[][] rows = {{v}, {null}, {v}};
      for (boolean ansi : new boolean[] {false, true}) {
        SparkDifferential.check(allocator, new Abs(c, ansi), types, new Object[][] {{v}}, "UTC");
        SparkDifferential.check(allocator, new Abs(c, ansi), types, rows, "UTC");
      }
    }
  }

  @Test
  void dateAddAndSubEqualSparks() {
    Random rnd = new Random(72);
    for (DataType days : new DataType[] {DataTypes.IntegerType, DataTypes.ShortType, DataTypes.ByteType}) {
      DataType[] types = {DataTypes.DateType, days};
      Expression d = new BoundReference(0, DataTypes.DateType, true);
      Expression k = new BoundReference(1, days, true);
      Expression[] exprs = {new DateAdd(d, k), new DateSub(d, k), new DateAdd(d, Literal.create(5, DataTypes.IntegerType)),
          new DateSub(new DateAdd(d, k), k), new DateAdd(d, Literal.create(null, days)),
          // compared, the wrapped day number itself (not only as written to a 32-bit vector)
          new GreaterThan(new DateAdd(d, k), d), new LessThan(new DateSub(d, k), d)};
      SparkDifferential.checkRandom(allocator, rnd, 12, types, java.util.List.of(exprs));
    }
    // the day number's int overflow wraps in Spark (ANSI or not: DateAdd has no eval mode)
    DataType[] types = {DataTypes.DateType, DataTypes.IntegerType};
    Expression d = new BoundReference(0, DataTypes.DateType, true);
    Expression k = new BoundReference(1, DataTypes.IntegerType, true);
    Object[][] rows = {{Integer.MAX_VALUE, 1}, {Integer.MIN_VALUE, -1}, {Integer.MIN_VALUE, Integer.MAX_VALUE},
        {-719162, -1}, {2932896, 1}, {null, 1}, {0, null}};
    SparkDifferential.check(allocator, new DateAdd(d, k), types, rows, "UTC");
    SparkDifferential.check(allocator, new DateSub(d, k), types, rows, "UTC");
    SparkDifferential.check(allocator, new GreaterThan(new DateAdd(d, k), d), types, rows, "UTC");
    SparkDifferential.check(allocator, new LessThan(new DateSub(d, k), d), types, rows, "UTC");
  }
}
