package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.BinaryArithmetic;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.MakeDecimal;
import org.apache.spark.sql.catalyst.expressions.UnscaledValue;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.LongType;

/**
 * Decimal + - * with Spark's result type (the expression's own dataType, precision loss included) and its
 * rounding: the exact result (Decimal's + and -; its * when the product has at most 38 digits, so its
 * MathContext(38) does not round) rounded half up to the result scale; a result over the result precision is
 * null, or Spark's error under ANSI. In unscaled longs when every operand and intermediate fits in 18 digits,
 * in 128 bits otherwise. Rows whose intermediate does not fit 128 bits or 38 digits, and every overflowing
 * row, are handed to Spark's own expression (its answer, or its error), so no BigDecimal is made per value.
 * Division and remainder: {@link Quotient}.
 */
final class DecimalKernels {
  private DecimalKernels() {}

  static Kernel binary(BinaryArithmetic e, int op, boolean ansi, ExpressionPlanning p) {
    if (!(e.left().dataType() instanceof DecimalType l) || !(e.right().dataType() instanceof DecimalType r)) {
      throw p.refuse("decimal arithmetic over non-decimal inputs: " + e.sql());
    }
    DecimalType out = (DecimalType) e.dataType();
    if (op == ArithmeticKernels.PMOD) {
      // (r + n) % n may need more digits than Spark's result type, whose overflow rule would need its own kernel
      throw p.refuse("pmod of decimals is not evaluated columnar: " + e.sql());
    }
    if (op == ArithmeticKernels.DIV || op == ArithmeticKernels.REM) {
      int shift = op == ArithmeticKernels.DIV ? out.scale() - l.scale() + r.scale() : out.scale() - Math.max(
          l.scale(), r.scale());
      if (op == ArithmeticKernels.DIV ? shift < 0 : shift != 0) {
        // only without spark.sql.decimalOperations.allowPrecisionLoss: a quotient scale below the operands'
        throw p.refuse("decimal " + (op == ArithmeticKernels.DIV ? "division" : "remainder") + " to scale "
            + out.scale() + " is not evaluated columnar: " + e.sql());
      }
      return new Quotient(e, op, p.ansi(e.evalMode().toString(), e), l, r, out, p.child(e.left()),
          p.child(e.right()));
    }
    return new Arithmetic(e, op, l, r, out, p.child(e.left()), p.child(e.right()));
  }

  /**
   * UnscaledValue (Spark's DecimalAggregates rewrites sum/avg of a decimal of at most 8 digits to a sum of these):
   * a narrow decimal's unscaled long, which is what the vector holds already.
   */
  static Kernel unscaledValue(Expression e, ExpressionPlanning p) {
    UnscaledValue u = (UnscaledValue) e;
    if (!(u.child().dataType() instanceof DecimalType d) || d.precision() > 18) {
      throw p.refuse("unscaled value of a decimal over 18 digits: " + e.sql());
    }
    Kernel child = p.child(u.child());
    return new Kernel(e) {
      @Override
      Vec eval(EvalBatch in, long[] active) {
        Vec c = child.eval(in, active);
        Vec out = new Vec(type, in.rows);
        out.longs = c.longs; // kernels never modify their inputs
        out.valid = c.valid;
        return out;
      }
    };
  }

  /**
   * MakeDecimal (the other half of that rewrite): a long as the unscaled value of decimal(precision, scale); a
   * value of precision or more digits is null, or Spark's error when not nullOnOverflow. Over 18 digits every long
   * fits.
   */
  static Kernel makeDecimal(Expression e, ExpressionPlanning p) {
    MakeDecimal m = (MakeDecimal) e;
    if (!(m.child().dataType() instanceof LongType)) {
      throw p.refuse("make_decimal of a " + m.child().dataType().simpleString() + ": " + e.sql());
    }
    Kernel child = p.child(m.child());
    int precision = m.precision();
    boolean nullOnOverflow = m.nullOnOverflow();
    return new Kernel(e) {
      @Override
      Vec eval(EvalBatch in, long[] active) {
        int n = in.rows;
        Vec c = child.eval(in, active);
        Vec out = new Vec(type, n);
        out.longs = c.longs;
        out.valid = c.valid;
        if (precision > 18) {
          long[] hi = new long[n];
          for (int i = 0; i < n; i++) {
            hi[i] = c.longs[i] >> 63;
          }
          out.his = hi;
          return out;
        }
        long limit = Int128.POW10_LONG[precision];
        long[] over = new long[Vec.words(n)];
        long any = 0;
        for (int i = 0; i < n; i++) {
          long v = c.longs[i];
          long o = (v <= -limit || v >= limit) ? 1L : 0L;
          over[i >>> 6] |= o << i;
          any |= o;
        }
        if (any != 0) {
          if (c.valid != null) {
            for (int w = 0; w < over.length; w++) {
              over[w] &= c.valid[w];
            }
          }
          out.valid = Vec.andValid(c.valid, null);
          long[] valid = out.validWords();
          for (int w = 0; w < over.length; w++) {
            // null on overflow; under ANSI a row Spark does not evaluate has no value either
            long unanswered = active == null ? 0 : over[w] & ~active[w];
            valid[w] &= ~(nullOnOverflow ? over[w] : unanswered);
          }
          if (!nullOnOverflow) {
            out.longs = c.longs.clone();
            ArithmeticKernels.fallback(this, out, new Vec[] {c}, over, active); // Spark's error
          }
        }
        return out;
      }
    };
  }

  /** The {@code hard} rows (an overflow, an intermediate past 128 bits): Spark's own answer, null or its error. */
  static void sparkRows(Kernel k, Vec out, Vec a, Vec b, long[] hard, long[] active) {
    for (int w = 0; w < hard.length; w++) {
      long m = hard[w] & (active == null ? -1L : active[w]);
      long inactive = hard[w] & ~m;
      if (inactive != 0) {
        out.validWords()[w] &= ~inactive; // Spark does not evaluate these rows; their value is unused
      }
    }
    ArithmeticKernels.fallback(k, out, new Vec[] {a, b}, hard, active);
  }

  static final class Arithmetic extends BinaryKernel {
    final int op;
    final int s1;
    final int s2;
    final int precision;
    final int scale;
    /** The exact result's scale. */
    final int exactScale;
    final boolean narrow;

    Arithmetic(Expression e, int op, DecimalType l, DecimalType r, DecimalType out, Kernel left, Kernel right) {
      super(e, left, right);
      this.op = op;
      this.s1 = l.scale();
      this.s2 = r.scale();
      this.precision = out.precision();
      this.scale = out.scale();
      if (op == ArithmeticKernels.MUL) {
        exactScale = s1 + s2;
        narrow = l.precision() + r.precision() <= 18 && precision <= 18 && scale <= exactScale;
      } else {
        exactScale = Math.max(s1, s2);
        int digits = Math.max(l.precision() - s1, r.precision() - s2) + exactScale + 1;
        narrow = digits <= 18 && precision <= 18 && scale <= exactScale;
      }
    }

    @Override
    void compute(Vec a, Vec b, Vec out, int n, long[] active) {
      long[] hard = new long[Vec.words(n)];
      long any = narrow ? narrowLoop(a.longs, b.longs, out.longs, n, hard) : wideLoop(a, b, out, n, hard);
      if (any != 0) {
        sparkRows(this, out, a, b, hard, active);
      }
    }

    private long narrowLoop(long[] x, long[] y, long[] r, int n, long[] hard) {
      boolean mul = op == ArithmeticKernels.MUL;
      long up1 = mul ? 1 : Int128.POW10_LONG[exactScale - s1]; // aligned operands fit 18 digits (narrow)
      long up2 = mul ? 1 : Int128.POW10_LONG[exactScale - s2];
      int down = exactScale - scale;
      long pow = Int128.POW10_LONG[down];
      long limit = Int128.POW10_LONG[precision];
      long any = 0;
      for (int i = 0; i < n; i++) {
        long v = switch (op) {
          case ArithmeticKernels.ADD -> x[i] * up1 + y[i] * up2;
          case ArithmeticKernels.SUB -> x[i] * up1 - y[i] * up2;
          default -> x[i] * y[i];
        };
        if (down > 0) {
          long q = v / pow;
          long rem = v % pow;
          if (Math.abs(rem) * 2 >= pow) {
            q += v < 0 ? -1 : 1;
          }
          v = q;
        }
        r[i] = v;
        long o = (v <= -limit || v >= limit) ? 1L : 0L;
        hard[i >>> 6] |= o << i;
        any |= o;
      }
      return any;
    }

    private long wideLoop(Vec a, Vec b, Vec out, int n, long[] hard) {
      Int128 x = new Int128();
      Int128 y = new Int128();
      long[] ah = a.his;
      long[] al = a.longs;
      long[] bh = b.his;
      long[] bl = b.longs;
      int up1 = exactScale - s1;
      int up2 = exactScale - s2;
      int down = exactScale - scale;
      long any = 0;
      for (int i = 0; i < n; i++) {
        x.set(ah == null ? al[i] >> 63 : ah[i], al[i]);
        y.set(bh == null ? bl[i] >> 63 : bh[i], bl[i]);
        boolean ok;
        if (op == ArithmeticKernels.MUL) {
          ok = x.fitsLong() && y.fitsLong();
          if (ok) {
            x.multiply(x.lo, y.lo);
            ok = x.fitsPrecision(38); // Decimal's MathContext(38) leaves the product exact
          }
        } else {
          ok = x.scaleUp(up1) && y.scaleUp(up2);
          if (ok) {
            if (op == ArithmeticKernels.SUB) {
              ok = y.negate();
            }
            ok = ok && x.add(y.hi, y.lo);
          }
        }
        if (ok) {
          if (down > 0) {
            x.scaleDownHalfUp(down);
          } else if (down < 0) {
            ok = x.scaleUp(-down);
          }
          ok = ok && x.fitsPrecision(precision);
        }
        any |= out.putDecimal(i, x, ok, hard);
      }
      return any;
    }
  }

  /**
   * Decimal / and %, as Spark's Divide and Remainder. Divide: Decimal's / is the exact quotient truncated to scale
   * 39 (BigDecimal.divide(b, MAX_SCALE + 1, DOWN): Decimal's MathContext is 39 digits, DOWN), which Spark then
   * rounds half up to the result scale s < 39; the truncation never crosses the half, so this is the exact
   * quotient rounded half up once: with |a| * 10^(s - s1 + s2) = Q * |b| + R, the magnitude Q + (2R >= |b|). A
   * result of more than the result precision's digits is null, or Spark's error under ANSI. Remainder: the
   * operands aligned to scale max(s1, s2), then Java's % (the dividend's sign), exact and always within the result
   * type; Spark computes it through BigDecimal.remainder(b, MathContext(39)), which fails when the integral
   * quotient has more than 39 digits: those rows go to Spark (its error or its value). A zero divisor: null, or
   * Spark's error under ANSI. In longs when the scaled operands fit 18 digits, in 128 bits by 64 when the scaled
   * dividend fits 38 digits and the divisor 18 (sums of decimal(7, 2) and the like), through BigInteger otherwise.
   */
  static final class Quotient extends BinaryKernel {
    final int op;
    final boolean ansi;
    final int precision;
    /** DIV: the dividend's scale-up 10^shift (result scale - s1 + s2); REM: the common scale's alignment. */
    final int shift;
    final int up1;
    final int up2;
    final boolean narrow;
    /** The scaled dividend fits 38 digits and the scaled divisor 18: a 128-bit by 64-bit division. */
    final boolean mid;
    /** REM: whether an integral quotient may pass 38 digits (Spark's BigDecimal.remainder then fails). */
    final boolean impossibleQuotients;

    Quotient(Expression e, int op, boolean ansi, DecimalType l, DecimalType r, DecimalType out, Kernel left,
        Kernel right) {
      super(e, left, right);
      this.op = op;
      this.ansi = ansi;
      this.precision = out.precision();
      if (op == ArithmeticKernels.DIV) {
        shift = out.scale() - l.scale() + r.scale();
        up1 = shift;
        up2 = 0;
        narrow = l.precision() + shift <= 18 && r.precision() <= 18;
        mid = l.precision() + shift <= 38 && r.precision() <= 18;
        impossibleQuotients = false;
      } else {
        int common = Math.max(l.scale(), r.scale());
        shift = 0;
        up1 = common - l.scale();
        up2 = common - r.scale();
        narrow = l.precision() + up1 <= 18 && r.precision() + up2 <= 18;
        mid = l.precision() + up1 <= 38 && r.precision() + up2 <= 18;
        impossibleQuotients = l.precision() - l.scale() + r.scale() > 39;
      }
    }

    @Override
    void compute(Vec a, Vec b, Vec out, int n, long[] active) {
      long[] zero = new long[Vec.words(n)];
      long[] hard = new long[Vec.words(n)];
      long anyZero = zeros(b, zero, n);
      long anyHard;
      if (narrow) {
        anyHard = op == ArithmeticKernels.DIV ? narrowDivide(a.longs, b.longs, out, n, hard)
            : narrowRemainder(a.longs, b.longs, out, n);
      } else if (mid) {
        anyHard = mid(a, b, out, n, hard);
      } else {
        anyHard = wide(a, b, out, n, zero, hard);
      }
      if ((anyZero | anyHard) == 0) {
        return;
      }
      long[] valid = out.validWords();
      for (int w = 0; w < hard.length; w++) {
        if (ansi) {
          hard[w] |= zero[w]; // Spark's errors, the first row's first, as Spark meets them
        } else {
          hard[w] &= ~zero[w];
          valid[w] &= ~zero[w];
        }
      }
      sparkRows(this, out, a, b, hard, active);
    }

    private static long zeros(Vec b, long[] zero, int n) {
      long[] lo = b.longs;
      long[] hi = b.his;
      long any = 0;
      for (int i = 0; i < n; i++) {
        long z = (lo[i] | (hi == null ? 0 : hi[i])) == 0 ? 1L : 0L;
        zero[i >>> 6] |= z << i;
        any |= z;
      }
      return any;
    }

    private long narrowDivide(long[] x, long[] y, Vec out, int n, long[] hard) {
      long[] r = out.longs;
      long[] rh = out.his;
      long scaleUp = Int128.POW10_LONG[shift];
      long limit = precision <= 18 ? Int128.POW10_LONG[precision] : Long.MAX_VALUE;
      long any = 0;
      for (int i = 0; i < n; i++) {
        long num = Math.abs(x[i]) * scaleUp; // < 10^18: |x| < 10^p1 and p1 + shift <= 18
        long d = Math.abs(y[i]) | (y[i] == 0 ? 1 : 0); // a zero divisor's row is null or an error
        long q = num / d;
        long rem = num - q * d;
        if (rem << 1 >= d) { // rem < d < 10^18: no overflow
          q++;
        }
        long v = (x[i] ^ y[i]) < 0 ? -q : q;
        r[i] = v;
        if (rh != null) {
          rh[i] = v >> 63;
        }
        long o = q >= limit ? 1L : 0L;
        hard[i >>> 6] |= o << i;
        any |= o;
      }
      return any;
    }

    private long narrowRemainder(long[] x, long[] y, Vec out, int n) {
      long[] r = out.longs;
      long[] rh = out.his;
      long m1 = Int128.POW10_LONG[up1];
      long m2 = Int128.POW10_LONG[up2];
      for (int i = 0; i < n; i++) {
        long d = y[i] * m2;
        long v = (x[i] * m1) % (d | (d == 0 ? 1 : 0));
        r[i] = v;
        if (rh != null) {
          rh[i] = v >> 63;
        }
      }
      return 0;
    }

    private long mid(Vec a, Vec b, Vec out, int n, long[] hard) {
      Int128 x = new Int128();
      long[] ah = a.his;
      long[] al = a.longs;
      long[] bl = b.longs; // the divisor's type has at most 18 digits
      long m2 = Int128.POW10_LONG[up2];
      boolean divide = op == ArithmeticKernels.DIV;
      long any = 0;
      for (int i = 0; i < n; i++) {
        x.set(ah == null ? al[i] >> 63 : ah[i], al[i]);
        boolean negative = x.hi < 0;
        if (negative) {
          x.negate(); // |a| < 10^38: no overflow
        }
        x.scaleUp(up1); // fits: at most 38 digits (mid)
        long d = Math.abs(bl[i] * m2) | (bl[i] == 0 ? 1 : 0); // a zero divisor's row is null or an error
        long rem = x.divideUnsigned(d);
        boolean ok;
        if (divide) {
          if (rem << 1 >= d) { // rem < d < 10^18
            x.add(0, 1);
          }
          ok = x.fitsPrecision(precision);
          if (negative != (bl[i] < 0)) {
            x.negate();
          }
        } else {
          x.setLong(negative ? -rem : rem); // Java's %: the dividend's sign
          ok = true;
        }
        any |= out.putDecimal(i, x, ok, hard);
      }
      return any;
    }

    private static final java.math.BigInteger LIMIT39 = java.math.BigInteger.TEN.pow(39);

    /** Rows valid and with a non-zero divisor, one BigInteger computation each. */
    private long wide(Vec a, Vec b, Vec out, int n, long[] zero, long[] hard) {
      java.math.BigInteger limit = java.math.BigInteger.TEN.pow(precision);
      java.math.BigInteger pow1 = java.math.BigInteger.TEN.pow(up1);
      java.math.BigInteger pow2 = java.math.BigInteger.TEN.pow(up2);
      long any = 0;
      for (int i = 0; i < n; i++) {
        if (!out.isValid(i) || (zero[i >>> 6] & (1L << i)) != 0) {
          continue;
        }
        java.math.BigInteger x = Int128.toBigInteger(a.his == null ? a.longs[i] >> 63 : a.his[i], a.longs[i]);
        java.math.BigInteger y = Int128.toBigInteger(b.his == null ? b.longs[i] >> 63 : b.his[i], b.longs[i]);
        java.math.BigInteger v;
        boolean ok = true;
        if (op == ArithmeticKernels.DIV) {
          java.math.BigInteger d = y.abs();
          java.math.BigInteger[] qr = x.abs().multiply(pow1).divideAndRemainder(d);
          java.math.BigInteger q = qr[0];
          if (qr[1].shiftLeft(1).compareTo(d) >= 0) {
            q = q.add(java.math.BigInteger.ONE);
          }
          ok = q.compareTo(limit) < 0;
          v = x.signum() * y.signum() < 0 ? q.negate() : q;
        } else {
          java.math.BigInteger dividend = x.multiply(pow1);
          java.math.BigInteger divisor = y.multiply(pow2);
          java.math.BigInteger[] qr = dividend.divideAndRemainder(divisor); // Java's %: the dividend's sign
          v = qr[1];
          ok = !impossibleQuotients || qr[0].abs().compareTo(LIMIT39) < 0;
        }
        if (ok) {
          out.longs[i] = v.longValue();
          if (out.his != null) {
            out.his[i] = v.shiftRight(64).longValue();
          } else {
            ok = v.bitLength() < 64;
          }
        }
        long o = ok ? 0L : 1L;
        hard[i >>> 6] |= o << i;
        any |= o;
      }
      return any;
    }
  }
}
