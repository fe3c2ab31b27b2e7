package io.rowmatch.spark.expression;

import java.math.BigDecimal;
import java.math.RoundingMode;

import org.apache.spark.sql.catalyst.expressions.BRound;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Round;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;

/**
 * {@code round} (HALF_UP) and {@code bround} (HALF_EVEN) to a literal scale, as Spark's RoundBase. Decimals: the
 * unscaled value rescaled to min(s, scale) with the mode; a result over the result type's precision is null
 * (Spark's toPrecision with nullOnOverflow), except for a negative scale, where Spark's Decimal.set fails: those
 * rows go to Spark (its error). Integral values: unchanged for a scale >= 0; otherwise rounded to a multiple of
 * 10^-scale, wrapped to the type as Java's narrowing (LEGACY) or, when it does not fit, Spark's ARITHMETIC_OVERFLOW
 * (ANSI, handed to Spark). Floating values: NaN and infinities unchanged; otherwise what Spark computes,
 * BigDecimal.valueOf(x).setScale(scale, mode) (the shortest decimal string of the double, so round(0.285, 2) is
 * 0.29) back to double (float through the widened double, back to float), one BigDecimal per row that is not
 * already an integer (correct first; a double fast path is not written).
 */
final class RoundKernels {
  private RoundKernels() {}

  static Kernel plan(Expression e, ExpressionPlanning p) {
    boolean halfEven = e instanceof BRound;
    Expression child = halfEven ? ((BRound) e).child() : ((Round) e).child();
    Expression scaleExpr = halfEven ? ((BRound) e).scale() : ((Round) e).scale();
    boolean ansi = halfEven ? ((BRound) e).ansiEnabled() : ((Round) e).ansiEnabled();
    DataType t = child.dataType();
    if (!scaleExpr.foldable()) {
      throw p.refuse(e.prettyName() + " to a scale that is not a constant: " + e.sql());
    }
    Object scaleValue = scaleExpr.eval(null);
    if (scaleValue == null) {
      throw p.refuse(e.prettyName() + " to a null scale: " + e.sql());
    }
    int scale = (Integer) scaleValue;
    boolean integral = ArithmeticKernels.integral(t);
    if (!integral && !(t instanceof FloatType || t instanceof DoubleType || t instanceof DecimalType)) {
      throw p.refuse(e.prettyName() + " of " + t.simpleString() + " is not evaluated columnar: " + e.sql());
    }
    if ((integral || t instanceof DecimalType) && scale < -18
        || t instanceof DecimalType d && d.scale() - scale > 38) {
      throw p.refuse(e.prettyName() + " to scale " + scale + " is not evaluated columnar: " + e.sql());
    }
    return new RoundKernel(e, halfEven, ansi, scale, p.child(child), p.child(scaleExpr));
  }

  /**
   * The magnitude {@code m >= 0} divided by {@code pow} with the mode applied to the dropped part ({@code odd}
   * ties decided by the quotient's parity under HALF_EVEN).
   */
  static long divideRounded(long m, long pow, boolean halfEven) {
    long q = m / pow;
    long twice = (m - q * pow) << 1; // < 2 * 10^18: no overflow
    if (twice > pow || (twice == pow && (!halfEven || (q & 1) != 0))) {
      q++;
    }
    return q;
  }

  static final class RoundKernel extends Kernel {
    final boolean halfEven;
    final boolean ansi;
    final int scale;
    final Kernel child;
    final Kernel scaleKernel;

    RoundKernel(Expression e, boolean halfEven, boolean ansi, int scale, Kernel child, Kernel scaleKernel) {
      super(e);
      this.halfEven = halfEven;
      this.ansi = ansi;
      this.scale = scale;
      this.child = child;
      this.scaleKernel = scaleKernel;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      Vec c = child.eval(in, active);
      DataType from = child.type;
      if (from instanceof DecimalType d) {
        return decimal(in, c, d, n, active);
      }
      if (ArithmeticKernels.integral(from) && scale >= 0) {
        return c; // kernels never modify their inputs
      }
      Vec out = in.allocate(type, n);
      out.valid = c.valid;
      if (out.kind == Vec.DOUBLE) {
        floating(c, out, n, from instanceof FloatType);
        return out;
      }
      long pow = Int128.POW10_LONG[-scale];
      int width = ArithmeticKernels.bits(type);
      long[] overflow = new long[Vec.words(n)];
      long any = 0;
      for (int i = 0; i < n; i++) {
        long v = c.longs[i];
        long m = v < 0 ? -v : v; // Long.MIN_VALUE stays negative: unsigned below
        long q = v == Long.MIN_VALUE ? Long.divideUnsigned(m, pow) : m / pow;
        long rem = v == Long.MIN_VALUE ? Long.remainderUnsigned(m, pow) : m - q * pow;
        long twice = rem << 1;
        if (twice > pow || (twice == pow && (!halfEven || (q & 1) != 0))) {
          q++;
        }
        // the exact result (q * pow, signed) wrapped to the type: Java's long product is its low 64 bits
        long hi = Math.multiplyHigh(q, pow);
        long r = q * pow;
        boolean exactLong = hi == 0 && r >= 0;
        long signed = v < 0 ? -r : r;
        if (v < 0 && hi == 0 && r == Long.MIN_VALUE) {
          exactLong = true; // -2^63
        }
        long wrapped = ArithmeticKernels.wrap(signed, width);
        out.longs[i] = wrapped;
        long o = exactLong && wrapped == signed ? 0L : 1L;
        overflow[i >>> 6] |= o << i;
        any |= o;
      }
      if (ansi && any != 0) {
        out.valid = out.valid == null ? null : out.valid.clone();
        ArithmeticKernels.fallback(this, out, new Vec[] {c, scaleKernel.eval(in, active)}, overflow, active);
      }
      return out;
    }

    private void floating(Vec c, Vec out, int n, boolean isFloat) {
      RoundingMode mode = halfEven ? RoundingMode.HALF_EVEN : RoundingMode.HALF_UP;
      double[] x = c.doubles;
      double[] r = out.doubles;
      for (int i = 0; i < n; i++) {
        double d = x[i];
        if (Double.isNaN(d) || Double.isInfinite(d) || !c.isValid(i)) {
          r[i] = d;
        } else if (scale >= 0 && d == Math.rint(d) && Math.abs(d) < 0x1p53) {
          r[i] = d == 0 ? 0.0 : d; // an integer is unchanged (-0.0 turns 0 through BigDecimal)
        } else {
          BigDecimal b = BigDecimal.valueOf(d).setScale(scale, mode);
          r[i] = isFloat ? b.floatValue() : b.doubleValue();
        }
      }
    }

    private Vec decimal(EvalBatch in, Vec c, DecimalType from, int n, long[] active) {
      DecimalType to = (DecimalType) type;
      Vec out = in.allocate(type, n);
      out.valid = Vec.andValid(c.valid, null);
      int drop = from.scale() - Math.min(from.scale(), scale); // digits rounded away (scale may be negative)
      int back = scale < 0 ? -scale : 0; // a negative scale's result is at scale 0: multiplied back
      long[] over = new long[Vec.words(n)];
      long any = 0;
      Int128 acc = new Int128();
      for (int i = 0; i < n; i++) {
        boolean ok;
        if (c.his == null && drop <= 18) {
          long v = c.longs[i];
          long m = Math.abs(v); // |v| < 10^18
          long q = drop == 0 ? m : divideRounded(m, Int128.POW10_LONG[drop], halfEven);
          acc.setLong(v < 0 ? -q : q);
        } else {
          acc.set(c.his == null ? c.longs[i] >> 63 : c.his[i], c.longs[i]);
          if (drop > 0) {
            acc.scaleDown(drop, halfEven);
          }
        }
        ok = back == 0 || acc.scaleUp(back);
        ok = ok && acc.fitsPrecision(to.precision());
        any |= out.putDecimal(i, acc, ok, over);
      }
      if (any != 0) {
        long[] valid = out.validWords();
        if (scale >= 0) {
          for (int w = 0; w < valid.length; w++) {
            valid[w] &= ~over[w]; // toPrecision(nullOnOverflow = true)
          }
        } else {
          for (int w = 0; w < over.length; w++) {
            valid[w] &= ~(over[w] & (active == null ? 0 : ~active[w])); // not evaluated by Spark
          }
          ArithmeticKernels.fallback(this, out, new Vec[] {c, scaleKernel.eval(in, active)}, over, active);
        }
      }
      return out;
    }
  }
}
