package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DecimalSums against a BigDecimal reference of Spark's buffer rule (a sum that exceeds the precision is
 * null for good), across the long fast path, its overflow into BigDecimal, and the precision bound.
 */
class DecimalSumsTest {
  private BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close(); // fails on a leaked buffer
  }

  private static BigInteger randomUnscaled(Random r, int digits, boolean signed) {
    BigInteger bound = BigInteger.TEN.pow(digits);
    BigInteger v = new BigInteger(bound.bitLength() + 4, r).mod(bound);
    if (r.nextInt(4) == 0) {
      v = bound.subtract(BigInteger.ONE).subtract(BigInteger.valueOf(r.nextInt(3))); // near the largest value
    }
    return signed && r.nextBoolean() ? v.negate() : v;
  }

  /** Returns how many groups overflowed, so a test can show its bound was reached. */
  private int check(int inputDigits, int precision, int scale, int groups, int rows, long seed, boolean signed) {
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
      for (int i = 0; i < rows; i++) {
        input.set(i, new BigDecimal(randomUnscaled(r, inputDigits, signed), scale));
        groupOf[i] = r.nextInt(groups);
      }
      input.setValueCount(rows);
      for (int i = 0; i < rows; i++) {
        int g = groupOf[i];
        sums.add(g, input, i);
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
