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
 * Division stays Spark's: Decimal's / rounds to 38 digits before the result scale, a double rounding.
 */
final class DecimalKernels {
  private DecimalKernels() {}

  static Kernel binary(BinaryArithmetic e, int op, boolean ansi, ExpressionPlanning p) {
    if (op == ArithmeticKernels.DIV) {
      throw p.refuse("decimal division is not evaluated columnar (Spark rounds its quotient twice): " + e.sql());
    }
    if (op == ArithmeticKernels.REM) {
      throw p.refuse("decimal remainder is not evaluated columnar: " + e.sql());
    }
    if (!(e.left().dataType() instanceof DecimalType l) || !(e.right().dataType() instanceof DecimalType r)) {
      throw p.refuse("decimal arithmetic over non-decimal inputs: " + e.sql());
    }
    return new Arithmetic(e, op, l, r, (DecimalType) e.dataType(), p.child(e.left()), p.child(e.right()));
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

  static final class Arithmetic extends Kernel {
    final int op;
    final int s1;
    final int s2;
    final int precision;
    final int scale;
    /** The exact result's scale. */
    final int exactScale;
    final boolean narrow;
    final Kernel left;
    final Kernel right;

    Arithmetic(Expression e, int op, DecimalType l, DecimalType r, DecimalType out, Kernel left, Kernel right) {
      super(e);
      this.op = op;
      this.s1 = l.scale();
      this.s2 = r.scale();
      this.precision = out.precision();
      this.scale = out.scale();
      this.left = left;
      this.right = right;
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
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      Vec a = left.eval(in, active);
      Vec b = right.eval(in, active);
      Vec out = Vec.allocate(type, n);
      out.valid = Vec.andValid(a.valid, b.valid);
      long[] hard = new long[Vec.words(n)];
      long any = narrow ? narrowLoop(a.longs, b.longs, out.longs, n, hard) : wideLoop(a, b, out, n, hard);
      if (any != 0) {
        // an overflow or an intermediate past 128 bits: Spark's own answer, null or its error
        for (int w = 0; w < hard.length; w++) {
          long m = hard[w] & (active == null ? -1L : active[w]);
          long inactive = hard[w] & ~m;
          if (inactive != 0) {
            out.validWords()[w] &= ~inactive; // Spark does not evaluate these rows; their value is unused
          }
        }
        ArithmeticKernels.fallback(this, out, new Vec[] {a, b}, hard, active);
      }
      return out;
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
      long[] oh = out.his;
      long[] ol = out.longs;
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
        if (oh != null) {
          oh[i] = x.hi;
        }
        ol[i] = x.lo;
        long o = ok ? 0L : 1L;
        hard[i >>> 6] |= o << i;
        any |= o;
      }
      return any;
    }
  }
}
