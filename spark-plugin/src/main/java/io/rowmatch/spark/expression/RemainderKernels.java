package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Remainder;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;

/**
 * Remainder ({@code a % b}) on integral and floating values, as Spark's: Java's {@code %} (the sign of the
 * dividend; {@code MIN % -1} is 0, never an overflow; IEEE fmod on doubles, exact, so a float's remainder computed
 * in double is the float's). A zero divisor (0, 0.0 or -0.0) gives null, or under ANSI Spark's REMAINDER_BY_ZERO
 * error for a row Spark evaluates whose dividend is not null (handed to Spark's own expression). Decimal remainder
 * stays Spark's.
 */
final class RemainderKernels {
  private RemainderKernels() {}

  static Kernel plan(Expression e, ExpressionPlanning p) {
    Remainder r = (Remainder) e;
    DataType t = e.dataType();
    if (t instanceof DecimalType) {
      throw p.refuse("decimal remainder is not evaluated columnar: " + e.sql());
    }
    if (!ArithmeticKernels.integral(t) && !(t instanceof FloatType || t instanceof DoubleType)) {
      throw p.refuse("remainder on " + t.simpleString() + " is not evaluated columnar: " + e.sql());
    }
    if (!r.left().dataType().sameType(t) || !r.right().dataType().sameType(t)) {
      throw p.refuse("remainder over mixed types: " + e.sql());
    }
    boolean ansi = p.ansi(r.evalMode().toString(), e);
    return new Rem(e, ansi, p.child(r.left()), p.child(r.right()));
  }

  static final class Rem extends Kernel {
    final boolean ansi;
    final Kernel left;
    final Kernel right;

    Rem(Expression e, boolean ansi, Kernel left, Kernel right) {
      super(e);
      this.ansi = ansi;
      this.left = left;
      this.right = right;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      Vec a = left.eval(in, active);
      Vec b = right.eval(in, active);
      Vec out = Vec.allocate(type, n);
      out.valid = Vec.andValid(a.valid, b.valid);
      long[] zero = new long[Vec.words(n)];
      long any = 0;
      if (out.kind == Vec.DOUBLE) {
        double[] x = a.doubles;
        double[] y = b.doubles;
        double[] r = out.doubles;
        for (int i = 0; i < n; i++) {
          r[i] = x[i] % y[i];
          long z = y[i] == 0 ? 1L : 0L; // -0.0 == 0 too
          zero[i >>> 6] |= z << i;
          any |= z;
        }
        if (type instanceof FloatType) {
          for (int i = 0; i < n; i++) {
            r[i] = (float) r[i];
          }
        }
      } else {
        long[] x = a.longs;
        long[] y = b.longs;
        long[] r = out.longs;
        for (int i = 0; i < n; i++) {
          long d = y[i];
          long z = d == 0 ? 1L : 0L;
          r[i] = x[i] % (d | z); // a zero divisor divides by 1 here; the row is null or an error below
          zero[i >>> 6] |= z << i;
          any |= z;
        }
      }
      if (any != 0) {
        if (ansi) {
          ArithmeticKernels.fallback(this, out, new Vec[] {a, b}, zero, active); // Spark's error
        }
        long[] valid = out.validWords();
        for (int w = 0; w < valid.length; w++) {
          valid[w] &= ~zero[w];
        }
      }
      return out;
    }
  }
}
