package io.rowmatch.spark.expression;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Concat;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Substring;
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

  /**
   * The byte search under contains and LIKE against the obvious loop: random values (bytes from a small alphabet, so
   * patterns recur, and bytes >= 0x80) at random offsets in a larger array, patterns of 0 to 12 bytes (some taken from
   * the value itself), every start position; lengths around the eight-position step.
   */
  @Test
  void indexOfEqualsTheObviousSearch() {
    Random rnd = new Random(61);
    byte[] alphabet = {'a', 'b', 's', 'l', 0, (byte) 0x80, (byte) 0xE6, (byte) 0xFF};
    for (int round = 0; round < 20_000; round++) {
      int l = rnd.nextInt(round % 3 == 0 ? 80 : 20);
      byte[] d = new byte[l + 16];
      for (int k = 0; k < d.length; k++) {
        d[k] = alphabet[rnd.nextInt(round % 2 == 0 ? 3 : alphabet.length)];
      }
      int s = rnd.nextInt(9);
      int pl = rnd.nextInt(13);
      byte[] pd = new byte[pl + 3];
      int ps = rnd.nextInt(4);
      if (pl > 0 && pl <= l && rnd.nextBoolean()) {
        System.arraycopy(d, s + rnd.nextInt(l - pl + 1), pd, ps, pl);
      } else {
        for (int k = 0; k < pl; k++) {
          pd[ps + k] = alphabet[rnd.nextInt(round % 2 == 0 ? 3 : alphabet.length)];
        }
      }
      for (int from = 0; from <= l + 1; from++) {
        int expected = -1;
        for (int at = from; at + pl <= l && expected < 0; at++) {
          if (java.util.Arrays.equals(d, s + at, s + at + pl, pd, ps, ps + pl)) {
            expected = at;
          }
        }
        if (pl == 0) {
          expected = from <= l ? from : -1;
        }
        assertEquals(expected, StringKernels.indexOf(d, s, l, pd, ps, pl, from),
            "value of " + l + " bytes at " + s + ", pattern of " + pl + ", from " + from);
      }
    }
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
    SparkDifferential.checkRandom(allocator, rnd, 12, types, java.util.List.of(exprs));
  }

  /**
   * substring as Spark evaluates it: positions and lengths from columns (the int extremes, random, null) and from
   * literals around the value's length (0, negative, past the end), over nulls, empty, multibyte and long strings.
   */
  @Test
  void substringEqualsSparks() {
    Random rnd = new Random(67);
    DataType s = DataTypes.StringType;
    DataType i = DataTypes.IntegerType;
    DataType[] types = {s, i, i};
    Expression str = new BoundReference(0, s, true);
    java.util.List<Expression> exprs = new java.util.ArrayList<>();
    exprs.add(new Substring(str, new BoundReference(1, i, true), new BoundReference(2, i, true)));
    int[] small = {Integer.MIN_VALUE, -80, -5, -2, -1, 0, 1, 2, 3, 7, 30, 71, Integer.MAX_VALUE};
    for (int pos : small) {
      for (int len : small) {
        exprs.add(new Substring(str, Literal.create(pos, i), Literal.create(len, i)));
      }
    }
    SparkDifferential.checkRandom(allocator, rnd, 12, types, exprs);
  }

  /** Malformed UTF-8 (a lead byte claiming bytes past the value): the slice stays inside the value. */
  @Test
  void substringOfMalformedValuesStaysInside() {
    byte[] data = {'a', (byte) 0xF0, 'b', 'c', 'd', 'e'}; // value [0, 3): 'a', then a 4-byte lead with one byte after it
    assertEquals(3L, StringKernels.slice(data, 0, 3, 1, 5)); // Spark would copy 'c', 'd' from past the value
    assertEquals(1L << 32 | 2, StringKernels.slice(data, 0, 3, 2, 1));
    assertEquals(0L, StringKernels.slice(data, 0, 3, 3, 1));
    assertEquals(1L << 32 | 2, StringKernels.slice(data, 0, 3, -1, 1)); // 2 characters: -1 is the second
  }
}
