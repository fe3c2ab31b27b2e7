package io.rowmatch.spark.aggregate;

import java.math.BigDecimal;
import java.util.Arrays;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.DecimalVector;

/**
 * Per-group running decimal sums at one scale, as Spark's sum and avg buffers keep them: a sum that no
 * longer fits the buffer precision becomes null for good (Spark's UnsafeRow buffer stores null, and a later
 * value does not bring it back). Exact: a group's sum stays an unscaled long while it fits one (the common
 * case, and no BigDecimal per value), and moves to BigDecimal only when it leaves the long range.
 */
final class DecimalSums {
  private static final BigDecimal[] NONE = new BigDecimal[0];

  private final HeapAccount heap;
  private final int precision;
  private final int scale;
  /** 10^precision when that fits a long: a long sum at or beyond it has overflowed the buffer. */
  private final long bound;
  private long[] small = new long[0];
  /** Non-null once the group's sum left the long range; then it is the sum. */
  private BigDecimal[] wide = NONE;
  private boolean[] overflowed = new boolean[0];

  DecimalSums(HeapAccount heap, int precision, int scale) {
    this.heap = heap;
    this.precision = precision;
    this.scale = scale;
    this.bound = precision <= 18 ? BigDecimal.ONE.scaleByPowerOfTen(precision).longValueExact() : 0;
  }

  void grow(int groupCount) {
    if (groupCount > wide.length) {
      // Charged as if every slot held a BigDecimal: any group may leave the long range.
      wide = Arrays.copyOf(wide,
          GrowableState.grow(heap, wide.length, groupCount, GrowableState.DECIMAL_SLOT_BYTES));
    }
    small = GrowableState.ensure(heap, small, groupCount);
    overflowed = GrowableState.ensure(heap, overflowed, groupCount);
  }

  boolean overflowed(int g) {
    return overflowed[g];
  }

  /** The group's sum becomes null for good (a merged side had overflowed). */
  void markOverflowed(int g) {
    overflowed[g] = true;
    wide[g] = null;
  }

  /** Adds row i of v, which is not null. */
  void add(int g, DecimalVector v, int i) {
    if (overflowed[g]) {
      return;
    }
    ArrowBuf data = v.getDataBuffer();
    long low = data.getLong(16L * i);
    long high = data.getLong(16L * i + 8);
    if (wide[g] == null && high == (low >> 63) && v.getScale() == scale) {
      addLong(g, low);
    } else {
      addWide(g, v.getObject(i));
    }
  }

  private void addLong(int g, long value) {
    long s = small[g] + value;
    if (((small[g] ^ s) & (value ^ s)) < 0) { // the long sum overflowed: continue exactly in BigDecimal
      addWide(g, BigDecimal.valueOf(value, scale));
      return;
    }
    if (bound != 0 && (s >= bound || s <= -bound)) {
      markOverflowed(g);
    } else {
      small[g] = s;
    }
  }

  private void addWide(int g, BigDecimal value) {
    BigDecimal current = wide[g] != null ? wide[g] : BigDecimal.valueOf(small[g], scale);
    BigDecimal s = current.add(value);
    // Same check as UnsafeRow.setDecimal (Decimal.changePrecision at an unchanged scale).
    if (s.setScale(scale).precision() > precision) {
      markOverflowed(g);
    } else {
      wide[g] = s;
    }
  }

  /** The group's sum at the buffer scale (zero when nothing was added); only for groups not overflowed. */
  BigDecimal value(int g) {
    return wide[g] != null ? wide[g].setScale(scale) : BigDecimal.valueOf(small[g], scale);
  }

  /**
   * Fills a buffer column with every group's sum (null where it overflowed); the column is allocated for
   * groupCount values and its value count set. Long sums are written as they are, without a BigDecimal.
   */
  void writeBuffer(DecimalVector sum, int groupCount) {
    sum.allocateNew(groupCount);
    for (int g = 0; g < groupCount; g++) {
      if (overflowed[g]) {
        sum.setNull(g);
      } else if (wide[g] != null) {
        sum.setSafe(g, wide[g].setScale(scale));
      } else {
        sum.setSafe(g, small[g]);
      }
    }
    sum.setValueCount(groupCount);
  }
}
