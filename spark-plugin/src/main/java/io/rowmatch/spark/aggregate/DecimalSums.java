package io.rowmatch.spark.aggregate;

import java.math.BigDecimal;
import java.util.Arrays;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.DecimalVector;

/**
 * Per-group running decimal sums at one scale, as Spark's sum and avg buffers keep them: a sum that no
 * longer fits the buffer precision becomes null for good (Spark's UnsafeRow buffer stores null, and a later
 * value does not bring it back). Exact: a group's sum stays an unscaled long while it fits one (the common
 * case, and no BigDecimal per value), and moves to BigDecimal only when it leaves the long range.
 */
final class DecimalSums {
  private static final BigDecimal[] NONE = new BigDecimal[0];
  private static final long[] POW10 = {
      1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L,
      10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L, 100_000_000_000_000L,
      1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L};

  private final HeapAccount heap;
  private final int precision;
  private final int scale;
  /** 10^precision when that fits a long: a long sum at or beyond it has overflowed the buffer. */
  private final long bound;
  /**
   * Per group g: [2g] its sum as an unscaled long (while wide[g] is null), [2g + 1] a count the caller keeps
   * (avg's count of values, sum's non-empty mark). Side by side because a batch's rows land on random
   * groups: one cache line per row, not two.
   */
  private long[] slots = new long[0];
  /** Non-null once the group's sum left the long range; then it is the sum. */
  private BigDecimal[] wide = NONE;
  private boolean[] overflowed = new boolean[0];
  /** Groups wide or overflowed; while none is, a row's add reads neither array. */
  private int unusual;

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
    slots = GrowableState.ensure(heap, slots, 2 * groupCount);
    overflowed = GrowableState.ensure(heap, overflowed, groupCount);
  }

  boolean overflowed(int g) {
    return overflowed[g];
  }

  /** The group's sum becomes null for good (a merged side had overflowed). */
  void markOverflowed(int g) {
    if (!overflowed[g] && wide[g] == null) {
      unusual++;
    }
    overflowed[g] = true;
    wide[g] = null;
  }

  /** The caller's count of group g (avg's count of values): 0 until {@link #addCount} or {@link #addRows}. */
  long count(int g) {
    return slots[2 * g + 1];
  }

  void addCount(int g, long n) {
    slots[2 * g + 1] += n;
  }

  /** Adds row i of v, which is not null. */
  void add(int g, DecimalVector v, int i) {
    if (unusual != 0 && overflowed[g]) {
      return;
    }
    ArrowBuf data = v.getDataBuffer();
    long low = data.getLong(16L * i);
    long high = data.getLong(16L * i + 8);
    if ((unusual == 0 || wide[g] == null) && high == (low >> 63) && v.getScale() == scale) {
      addLong(g, low);
    } else {
      addWide(g, v.getObject(i));
    }
  }

  /**
   * Adds every non-null row of v (rows 0..rows-1) to its group groupIds[i], and when {@code count} adds 1 to the
   * group's count for each: the loop of a batch, with the batch's checks (nulls, scale, width) made once.
   */
  void addRows(DecimalVector v, int rows, int[] groupIds, boolean count) {
    long[] valid = NumericColumns.validWords(v, rows);
    boolean sameScale = v.getScale() == scale;
    boolean narrow = v.getPrecision() <= 18 && sameScale; // the high word is the sign extension
    long data = NumericColumns.layout(v, rows).data; // read by address: one capacity check for the batch
    for (int i = 0; i < rows; i++) {
      if (!NumericColumns.valid(valid, i)) {
        continue;
      }
      int g = groupIds[i];
      if (count) {
        slots[2 * g + 1]++;
      }
      long low = MemoryUtil.getLong(data + 16L * i);
      if (unusual == 0 && (narrow || (sameScale && MemoryUtil.getLong(data + 16L * i + 8) == (low >> 63)))) {
        addLong(g, low);
      } else {
        add(g, v, i);
      }
    }
  }

  private void addLong(int g, long value) {
    long current = slots[2 * g];
    long s = current + value;
    if (((current ^ s) & (value ^ s)) < 0) { // the long sum overflowed: continue exactly in BigDecimal
      addWide(g, BigDecimal.valueOf(value, scale));
      return;
    }
    if (bound != 0 && (s >= bound || s <= -bound)) {
      markOverflowed(g);
    } else {
      slots[2 * g] = s;
    }
  }

  private void addWide(int g, BigDecimal value) {
    BigDecimal current = wide[g] != null ? wide[g] : BigDecimal.valueOf(slots[2 * g], scale);
    BigDecimal s = current.add(value);
    // Same check as UnsafeRow.setDecimal (Decimal.changePrecision at an unchanged scale).
    if (s.setScale(scale).precision() > precision) {
      markOverflowed(g);
    } else {
      if (wide[g] == null) {
        unusual++;
      }
      wide[g] = s;
    }
  }

  /** The group's sum at the buffer scale (zero when nothing was added); only for groups not overflowed. */
  BigDecimal value(int g) {
    return wide[g] != null ? wide[g].setScale(scale) : BigDecimal.valueOf(slots[2 * g], scale);
  }

  /**
   * The group's sum divided by {@code divisor} (> 0) at scale {@code resultScale} (>= the buffer scale), rounded
   * half up, as an unscaled long (of any result precision: TPC-H's avg over decimal(15, 2) is decimal(19, 6));
   * {@link Long#MIN_VALUE} when it is not computed in longs (a wide sum, a scaled sum past 18 digits, or a
   * quotient of {@code resultPrecision} digits or more): the caller goes through Spark's
   * Decimal then. Spark's Decimal division truncates the exact quotient at scale 39 before rounding half up to
   * the result scale; a truncation never crosses a half at a smaller scale, so this one rounding is the same.
   */
  long quotient(int g, long divisor, int resultPrecision, int resultScale) {
    int up = resultScale - scale;
    if (wide[g] != null || up < 0 || up > 18) {
      return Long.MIN_VALUE;
    }
    long sum = slots[2 * g];
    long magnitude = Math.abs(sum); // |sum| < 10^18 (the buffer's bound or the long range is checked below)
    if (sum == Long.MIN_VALUE || magnitude >= POW10[18 - up]) {
      return Long.MIN_VALUE;
    }
    long num = magnitude * POW10[up];
    long q = num / divisor;
    long rem = num - q * divisor;
    if (rem >= divisor - rem) { // 2 * rem >= divisor, without overflow
      q++;
    }
    if (resultPrecision <= 18 && q >= POW10[resultPrecision]) { // q < 10^18 fits any wider precision
      return Long.MIN_VALUE;
    }
    return sum < 0 ? -q : q;
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
        sum.setSafe(g, slots[2 * g]);
      }
    }
    sum.setValueCount(groupCount);
  }
}
