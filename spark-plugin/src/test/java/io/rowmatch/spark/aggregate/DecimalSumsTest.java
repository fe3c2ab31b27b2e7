package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;

import org.apache.arrow.vector.DecimalVector;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * DecimalSums against a BigDecimal reference of Spark's buffer rule (a sum that exceeds the precision is
 * null for good), across the long fast path, its overflow into BigDecimal, and the precision bound.
 */
class DecimalSumsTest extends AllocatorTest {
  private static BigInteger randomUnscaled(Random r, int digits, boolean signed) {
    BigInteger bound = BigInteger.TEN.pow(digits);
    BigInteger v = new BigInteger(bound.bitLength() + 4, r).mod(bound);
    if (r.nextInt(4) == 0) {
      v = bound.subtract(BigInteger.ONE).subtract(BigInteger.valueOf(r.nextInt(3))); // near the largest value
    }
    return signed && r.nextBoolean() ? v.negate() : v;
  }

  private int check(int inputDigits, int precision, int scale, int groups, int rows, long seed, boolean signed) {
    check(inputDigits, precision, scale, groups, rows, seed, signed, true, true);
    check(inputDigits, precision, scale, groups, rows, seed, signed, true, false);
    return check(inputDigits, precision, scale, groups, rows, seed, signed, false, false);
  }

  /**
   * Returns how many groups overflowed, so a test can show its bound was reached. {@code batch}: the rows go in
   * through addRows (counted per group) instead of add row by row; {@code nulls}: one row in seven is null (a
   * batch without nulls has no validity words).
   */
  private int check(int inputDigits, int precision, int scale, int groups, int rows, long seed, boolean signed,
      boolean batch, boolean nulls) {
    Random r = new Random(seed);
    try (HeapAccount heap = new HeapAccount(allocator, "test");
        DecimalVector input = new DecimalVector("in", allocator, Math.min(38, inputDigits), scale)) {
      DecimalSums sums = new DecimalSums(heap, precision, scale);
      BigDecimal[] expected = new BigDecimal[groups];
      boolean[] overflowed = new boolean[groups];
      java.util.Arrays.fill(expected, BigDecimal.ZERO.setScale(scale));
      sums.grow(groups);
      input.allocateNew(rows);
      int[] groupOf = new int[rows];
      long[] counts = new long[groups];
      for (int i = 0; i < rows; i++) {
        BigDecimal value = new BigDecimal(randomUnscaled(r, inputDigits, signed), scale);
        groupOf[i] = r.nextInt(groups);
        if (nulls && r.nextInt(7) == 0) {
          input.setNull(i);
        } else {
          input.set(i, value);
        }
      }
      input.setValueCount(rows);
      if (batch) {
        sums.addRows(input, rows, groupOf, true);
      }
      for (int i = 0; i < rows; i++) {
        int g = groupOf[i];
        if (input.isNull(i)) {
          continue;
        }
        counts[g]++;
        if (!batch) {
          sums.add(g, input, i);
        }
        if (!overflowed[g]) {
          BigDecimal s = expected[g].add(input.getObject(i));
          if (s.precision() > precision) {
            overflowed[g] = true;
          } else {
            expected[g] = s;
          }
        }
      }
      try (DecimalVector buffer = new DecimalVector("sum", allocator, precision, scale)) {
        sums.writeBuffer(buffer, groups);
        assertEquals(groups, buffer.getValueCount());
        for (int g = 0; g < groups; g++) {
          assertEquals(overflowed[g] ? null : expected[g], buffer.getObject(g), "buffer of group " + g);
        }
      }
      int overflows = 0;
      for (int g = 0; g < groups; g++) {
        assertEquals(overflowed[g], sums.overflowed(g), "overflow of group " + g);
        assertEquals(batch ? counts[g] : 0, sums.count(g), "count of group " + g);
        if (!overflowed[g]) {
          assertEquals(expected[g], sums.value(g), "sum of group " + g);
        } else {
          overflows++;
        }
      }
      return overflows;
    }
  }

  @Test
  void sumsOfSmallDecimalsWithAPrecisionBoundThatFitsALong() {
    // decimal(8, 0) into decimal(11, 0) and decimal(16, 2) into decimal(18, 2): positive values reach the
    // bound (10^11, 10^18 unscaled, both inside a long) within a few hundred rows; signed ones mostly not.
    assertEquals(2, check(8, 11, 0, 2, 20000, 1, false));
    assertEquals(3, check(16, 18, 2, 3, 2000, 2, false));
    check(8, 11, 0, 2, 2000, 6, true);
  }

  @Test
  void sumsThatLeaveTheLongRangeContinueExactly() {
    // decimal(18, 3) summed into decimal(28, 3): sums pass 9.2e18 unscaled and go on in BigDecimal.
    check(18, 28, 3, 2, 3000, 3, true);
    assertEquals(0, check(18, 28, 3, 2, 3000, 7, false)); // far past Long.MAX_VALUE, far from 10^28
    // A near-38-digit buffer: long fast path for the values that fit, BigDecimal for the others.
    check(25, 35, 4, 4, 3000, 4, true);
    check(28, 38, 0, 1, 200000, 5, true);
  }

  /** A group's sum as Spark's Average divides it: Decimal's / and then toPrecision half up (the reference). */
  private static BigDecimal sparkAverage(BigDecimal sum, long count, int precision, int scale) {
    org.apache.spark.sql.types.Decimal q =
        org.apache.spark.sql.types.Decimal.apply(sum).$div(org.apache.spark.sql.types.Decimal.apply(count));
    org.apache.spark.sql.types.Decimal r = q.toPrecision(precision, scale,
        org.apache.spark.sql.types.Decimal.ROUND_HALF_UP(), true, null);
    return r == null ? null : r.toJavaBigDecimal();
  }

  @Test
  void quotientInLongsIsSparksAverageWhereItAnswers() {
    Random r = new Random(11);
    int fast = 0;
    int ties = 0;
    int declined = 0;
    // (sum precision, sum scale, result precision, result scale): avg over decimal(12, 2), (8, 0), (14, 4), (5, 5),
    // and over TPC-H's decimal(15, 2) and a decimal(28, 10), whose results are wider than a long's 18 digits
    int[][] types = {{22, 2, 16, 6}, {18, 0, 12, 4}, {24, 4, 18, 8}, {15, 5, 9, 9}, {25, 2, 19, 6},
        {38, 10, 32, 14}};
    for (int[] t : types) {
      try (HeapAccount heap = new HeapAccount(allocator, "test");
          DecimalVector input = new DecimalVector("in", allocator, 18, t[1])) {
        int groups = 4000;
        DecimalSums sums = new DecimalSums(heap, t[0], t[1]);
        sums.grow(groups);
        input.allocateNew(groups);
        long[] counts = new long[groups];
        for (int g = 0; g < groups; g++) {
          long count = switch (r.nextInt(4)) {
            case 0 -> 1L << r.nextInt(12); // powers of two: quotients ending in 5, ties at the result scale
            case 1 -> 1 + r.nextInt(7);
            case 2 -> 1 + (r.nextLong() >>> 1) % 1_000_000_000_000L;
            default -> 1 + r.nextInt(100_000);
          };
          int digits = 1 + r.nextInt(18);
          long unscaled = (r.nextLong() >>> 1) % pow10(digits);
          if (r.nextInt(8) == 0) {
            unscaled = pow10(18 - (t[3] - t[1])) - 1 - r.nextInt(2); // at the edge of the long path
          }
          if (r.nextBoolean()) {
            unscaled = -unscaled;
          }
          input.set(g, new BigDecimal(java.math.BigInteger.valueOf(unscaled), t[1]));
          counts[g] = count;
        }
        input.setValueCount(groups);
        int[] ids = new int[groups];
        for (int g = 0; g < groups; g++) {
          ids[g] = g;
        }
        sums.addRows(input, groups, ids, false);
        for (int g = 0; g < groups; g++) {
          if (sums.overflowed(g)) {
            continue;
          }
          BigDecimal expected = sparkAverage(sums.value(g), counts[g], t[2], t[3]);
          long q = sums.quotient(g, counts[g], t[2], t[3]);
          if (q == Long.MIN_VALUE) {
            declined++;
            continue;
          }
          fast++;
          BigDecimal exact = sums.value(g).divide(BigDecimal.valueOf(counts[g]), t[3] + 3, java.math.RoundingMode.DOWN);
          if (exact.movePointRight(t[3] + 1).abs().toBigInteger().mod(java.math.BigInteger.TEN).intValue() == 5
              && exact.movePointRight(t[3] + 3).abs().toBigInteger().mod(java.math.BigInteger.valueOf(100))
                  .signum() == 0) {
            ties++;
          }
          assertEquals(expected, BigDecimal.valueOf(q, t[3]), "sum " + sums.value(g) + " / " + counts[g]);
        }
      }
    }
    // the test reaches the long path, exact halves in it, and the declined cases (Spark's Decimal then)
    org.junit.jupiter.api.Assertions.assertTrue(fast > 10000 && ties > 100 && declined > 100,
        "fast " + fast + ", ties " + ties + ", declined " + declined);
  }

  /** 10^i as a long, for i in [0, 18]. */
  private static long pow10(int i) {
    return BigDecimal.ONE.scaleByPowerOfTen(i).longValueExact();
  }

  @Test
  void aMarkedOverflowStaysNull() {
    try (HeapAccount heap = new HeapAccount(allocator, "test");
        DecimalVector input = new DecimalVector("in", allocator, 10, 2)) {
      DecimalSums sums = new DecimalSums(heap, 20, 2);
      sums.grow(1);
      input.allocateNew(1);
      input.set(0, new BigDecimal("-12.50"));
      input.setValueCount(1);
      sums.add(0, input, 0);
      assertEquals(new BigDecimal("-12.50"), sums.value(0));
      sums.markOverflowed(0);
      sums.add(0, input, 0);
      assertEquals(true, sums.overflowed(0));
    }
  }
}
