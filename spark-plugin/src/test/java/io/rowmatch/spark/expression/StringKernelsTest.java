package io.rowmatch.spark.expression;

import java.util.Random;

import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Concat;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * String kernels against Spark's own evaluation (SparkDifferential): random batches of sizes 0/1/63/64/65/300 with
 * nulls, empty, multibyte and long strings.
 */
class StringKernelsTest extends AllocatorTest {
  private static Expression concat(Expression... children) {
    return new Concat(CollectionConverters.asScala(java.util.List.of(children)).toSeq());
  }

  @Test
  void concatEqualsSparks() {
    Random rnd = new Random(59);
    DataType s = DataTypes.StringType;
    DataType[] types = {s, s, s};
    Expression a = new BoundReference(0, s, true);
    Expression b = new BoundReference(1, s, true);
    Expression c = new BoundReference(2, s, true);
    Expression sep = Literal.create(UTF8String.fromString(", "), s);
    Expression nullLiteral = Literal.create(null, s);
    Expression[] exprs = {concat(a, b), concat(a, sep, b), concat(a), concat(), concat(a, b, c, a),
        concat(sep, a), concat(a, nullLiteral), concat(concat(a, b), c)};
    for (int round = 0; round < 12; round++) {
      int n = SparkDifferential.SIZES[round % SparkDifferential.SIZES.length];
      Object[][] rows = SparkDifferential.rows(rnd, n, types);
      for (Expression e : exprs) {
        SparkDifferential.check(allocator, e, types, rows, "UTC");
      }
    }
  }
}
