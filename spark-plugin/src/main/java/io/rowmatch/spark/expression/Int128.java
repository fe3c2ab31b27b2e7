package io.rowmatch.spark.expression;

import java.math.BigInteger;

/**
 * Signed 128-bit integers as (hi, lo) longs, two's complement, for decimal unscaled values above 18 digits.
 * A mutable accumulator so the decimal loops allocate nothing: each operation leaves its result in
 * {@link #hi}/{@link #lo} and returns false when it does not fit in 128 bits.
 */
final class Int128 {
  long hi;
  long lo;

  /** 10^i for i in [0, 38], as (hi, lo). */
  static final long[] POW10_HI = new long[39];
  static final long[] POW10_LO = new long[39];
  static final long[] POW10_LONG = new long[19];

  static {
    BigInteger p = BigInteger.ONE;
    for (int i = 0; i <= 38; i++) {
      POW10_LO[i] = p.longValue();
      POW10_HI[i] = p.shiftRight(64).longValue();
      if (i <= 18) {
        POW10_LONG[i] = p.longValue();
      }
      p = p.multiply(BigInteger.TEN);
    }
  }

  static BigInteger toBigInteger(long hi, long lo) {
    return BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
  }

  void set(long hi, long lo) {
    this.hi = hi;
    this.lo = lo;
  }

  void setLong(long v) {
    this.hi = v >> 63;
    this.lo = v;
  }

  /** Whether the value fits in a long (the high word is the sign extension of the low). */
  boolean fitsLong() {
    return hi == (lo >> 63);
  }

  /** this += (bh, bl); false on signed overflow. */
  boolean add(long bh, long bl) {
    long l = lo + bl;
    long carry = Long.compareUnsigned(l, lo) < 0 ? 1 : 0;
    long h = hi + bh + carry;
    boolean overflow = ((hi ^ h) & (bh ^ h)) < 0;
    hi = h;
    lo = l;
    return !overflow;
  }

  /** this = -this; false for the one value with no negation. */
  boolean negate() {
    boolean min = hi == Long.MIN_VALUE && lo == 0;
    lo = -lo;
    hi = ~hi + (lo == 0 ? 1 : 0);
    return !min;
  }

  /** this = a * b exactly (always fits). */
  void multiply(long a, long b) {
    hi = Math.multiplyHigh(a, b);
    lo = a * b;
  }

  private static long unsignedMultiplyHigh(long a, long b) {
    return Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
  }

  /** this *= 10^k (k in [0, 38]); false when the product does not fit. */
  boolean scaleUp(int k) {
    boolean negative = hi < 0;
    if (negative && !negate()) {
      return false;
    }
    while (k > 0) {
      int step = Math.min(k, 18);
      long c = POW10_LONG[step];
      // magnitude (hi, lo) * c, unsigned; hi * c must stay below 2^63
      long lh = unsignedMultiplyHigh(lo, c);
      long ll = lo * c;
      long hh = Math.multiplyHigh(hi, c);
      long hl = hi * c;
      if (hh != 0 || hl < 0) {
        return false;
      }
      long h = hl + lh;
      if (h < 0) {
        return false;
      }
      hi = h;
      lo = ll;
      k -= step;
    }
    if (negative) {
      negate();
    }
    return true;
  }

  /**
   * this /= 10^k (k in [1, 38]) rounded half up (away from zero when the dropped part is at least one
   * half), as Spark's Decimal.changePrecision with ROUND_HALF_UP.
   */
  void scaleDownHalfUp(int k) {
    scaleDown(k, false);
  }

  /**
   * this /= 10^k (k in [1, 38]) rounded half up, or half even (a tie to the even quotient) when {@code halfEven}.
   */
  void scaleDown(int k, boolean halfEven) {
    boolean negative = hi < 0;
    if (negative) {
      negate(); // the minimum's magnitude 2^127 reads right as unsigned below
    }
    // divide the unsigned magnitude by 10^(k-1), then by 10, keeping the first dropped digit and whether any
    // later dropped digit is non-zero
    int rest = k - 1;
    boolean sticky = false;
    while (rest > 0) {
      int step = Math.min(rest, 9);
      sticky |= divideSmall((int) POW10_LONG[step]) != 0;
      rest -= step;
    }
    int digit = divideSmall(10);
    if (digit > 5 || (digit == 5 && (!halfEven || sticky || (lo & 1) != 0))) {
      lo++;
      if (lo == 0) {
        hi++;
      }
    }
    if (negative) {
      negate();
    }
  }

  /**
   * Unsigned (hi, lo) /= d for an unsigned d != 0; returns the unsigned remainder. The high word by d, then the
   * remainder and the low word by d (two digits of 32 bits, normalized: Hacker's Delight's divlu).
   */
  long divideUnsigned(long d) {
    long q1 = Long.divideUnsigned(hi, d);
    long r = Long.remainderUnsigned(hi, d);
    // (r, lo) / d with r < d: the quotient fits 64 bits
    int s = Long.numberOfLeadingZeros(d);
    long v = d << s;
    long vn1 = v >>> 32;
    long vn0 = v & 0xFFFFFFFFL;
    long un32 = s == 0 ? r : (r << s) | (lo >>> (64 - s));
    long un10 = lo << s;
    long un1 = un10 >>> 32;
    long un0 = un10 & 0xFFFFFFFFL;
    long b = 1L << 32;
    long qh = Long.divideUnsigned(un32, vn1);
    long rhat = un32 - qh * vn1;
    while (Long.compareUnsigned(qh, b) >= 0 || Long.compareUnsigned(qh * vn0, (rhat << 32) + un1) > 0) {
      qh--;
      rhat += vn1;
      if (Long.compareUnsigned(rhat, b) >= 0) {
        break;
      }
    }
    long un21 = (un32 << 32) + un1 - qh * v;
    long ql = Long.divideUnsigned(un21, vn1);
    rhat = un21 - ql * vn1;
    while (Long.compareUnsigned(ql, b) >= 0 || Long.compareUnsigned(ql * vn0, (rhat << 32) + un0) > 0) {
      ql--;
      rhat += vn1;
      if (Long.compareUnsigned(rhat, b) >= 0) {
        break;
      }
    }
    long rem = ((un21 << 32) + un0 - ql * v) >>> s;
    hi = q1;
    lo = (qh << 32) + ql;
    return rem;
  }

  /** Unsigned (hi, lo) /= d for 0 < d < 2^31; returns the remainder. */
  private int divideSmall(int d) {
    long q3 = (hi >>> 32) / d;
    long r = (hi >>> 32) - q3 * d;
    long cur = (r << 32) | (hi & 0xFFFFFFFFL);
    long q2 = cur / d;
    r = cur - q2 * d;
    cur = (r << 32) | (lo >>> 32);
    long q1 = cur / d;
    r = cur - q1 * d;
    cur = (r << 32) | (lo & 0xFFFFFFFFL);
    long q0 = cur / d;
    r = cur - q0 * d;
    hi = (q3 << 32) | q2;
    lo = (q1 << 32) | q0;
    return (int) r;
  }

  /** Whether |this| < 10^precision (precision in [1, 38]). */
  boolean fitsPrecision(int precision) {
    long h = hi;
    long l = lo;
    if (h < 0) {
      l = -l;
      h = ~h + (l == 0 ? 1 : 0);
    }
    long ph = POW10_HI[precision];
    long pl = POW10_LO[precision];
    return h < ph || (h == ph && Long.compareUnsigned(l, pl) < 0);
  }

  static int compare(long ah, long al, long bh, long bl) {
    if (ah != bh) {
      return ah < bh ? -1 : 1;
    }
    return Long.compareUnsigned(al, bl);
  }
}
