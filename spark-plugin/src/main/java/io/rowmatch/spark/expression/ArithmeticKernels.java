package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Abs;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.BinaryArithmetic;
import org.apache.spark.sql.catalyst.expressions.Divide;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.Pmod;
import org.apache.spark.sql.catalyst.expressions.Remainder;
import org.apache.spark.sql.catalyst.expressions.Subtract;
import org.apache.spark.sql.catalyst.expressions.UnaryExpression;
import org.apache.spark.sql.catalyst.expressions.UnaryMinus;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;

/**
 * + - * / % pmod, unary minus and abs on integral and floating values (decimals: {@link DecimalKernels}). Integral results
 * wrap as Java's do (Spark's LEGACY mode) or, under ANSI, a row that overflows is handed to Spark's own
 * expression, which raises its error; a float result is the double result rounded once to float (exact for
 * these operations: % is IEEE fmod, exact). Remainder is Java's {@code %} (the dividend's sign; {@code MIN % -1}
 * is 0, never an overflow). Pmod is Spark's {@code r = a % n; r < 0 ? (r + n) % n : r} in the type's own
 * arithmetic: an int's {@code r + n} wraps (a long's too), a byte's and a short's is an int and does not; a float's
 * {@code r + n} is rounded to float before the second %. A zero divisor (0, 0.0 or -0.0) gives null, or under
 * ANSI Spark's DIVIDE_BY_ZERO / REMAINDER_BY_ZERO error ({@link #zeroDivisors}). Abs is negation of the negative
 * rows: the minimum wraps to itself (Java's Math.abs) or, under ANSI, is Spark's overflow error; a floating abs
 * clears the sign bit (-0.0 is 0.0, NaN stays NaN); a decimal keeps its type.
 */
final class ArithmeticKernels {
  private ArithmeticKernels() {}

  static final int ADD = 0;
  static final int SUB = 1;
  static final int MUL = 2;
  static final int DIV = 3;
  static final int REM = 4;
  static final int PMOD = 5;

  static Kernel binary(Expression e, ExpressionPlanning p) {
    BinaryArithmetic b = (BinaryArithmetic) e;
    DataType t = e.dataType();
    int op = e instanceof Add ? ADD : e instanceof Subtract ? SUB : e instanceof Multiply ? MUL
        : e instanceof Divide ? DIV : e instanceof Remainder ? REM : e instanceof Pmod ? PMOD : -1;
    if (op < 0) {
      throw p.refuse(e.prettyName() + " is not evaluated columnar: " + e.sql());
    }
    boolean ansi = p.ansi(b.evalMode().toString(), e);
    if (t instanceof DecimalType) {
      return DecimalKernels.binary(b, op, ansi, p);
    }
    if (!integral(t) && !(t instanceof FloatType || t instanceof DoubleType)) {
      throw p.refuse(e.prettyName() + " on " + t.simpleString() + " is not evaluated columnar: " + e.sql());
    }
    if (!b.left().dataType().sameType(t) || !b.right().dataType().sameType(t)) {
      throw p.refuse(e.prettyName() + " over mixed types: " + e.sql());
    }
    return new Binary(e, op, ansi, p.child(b.left()), p.child(b.right()));
  }

  /** Unary minus and abs: one kernel, which for abs negates only the negative rows. */
  static Kernel negation(Expression e, ExpressionPlanning p) {
    boolean abs = e instanceof Abs;
    DataType t = e.dataType();
    if (!integral(t) && !(t instanceof FloatType || t instanceof DoubleType) && !(t instanceof DecimalType)) {
      throw p.refuse((abs ? "abs" : "negation") + " of " + t.simpleString() + " is not evaluated columnar: "
          + e.sql());
    }
    boolean failOnError = abs ? ((Abs) e).failOnError() : ((UnaryMinus) e).failOnError();
    return new Negate(e, failOnError, abs, p.child(((UnaryExpression) e).child()));
  }

  static boolean integral(DataType t) {
    return t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType;
  }

  /** The value wrapped to the integral type's width, sign-extended (Java's narrowing cast). */
  static long wrap(long v, int bits) {
    return switch (bits) {
      case 8 -> (byte) v;
      case 16 -> (short) v;
      case 32 -> (int) v;
      default -> v;
    };
  }

  static int bits(DataType t) {
    return t instanceof ByteType ? 8 : t instanceof ShortType ? 16 : t instanceof IntegerType ? 32 : 64;
  }

  /** Hands the flagged rows (inputs valid, active) to Spark's own expression; its value or error is Spark's. */
  static void fallback(Kernel k, Vec out, Vec[] children, long[] flagged, long[] active) {
    for (int w = 0; w < flagged.length; w++) {
      long bitsWord = flagged[w];
      if (active != null) {
        bitsWord &= active[w];
      }
      for (long m = bitsWord; m != 0; m &= m - 1) {
        int r = (w << 6) + Long.numberOfTrailingZeros(m);
        boolean inputsValid = true;
        for (Vec c : children) {
          inputsValid &= c.isValid(r);
        }
        if (inputsValid) {
          out.setSparkValue(r, RowFallback.eval(k.expr, children, r));
        }
      }
    }
  }

  /**
   * Rows with a zero divisor ({@code zero}, inputs' validity not applied): null, or under ANSI Spark's error for a
   * row Spark evaluates whose dividend and divisor are not null (Spark's own expression raises it).
   */
  static void zeroDivisors(Kernel k, boolean ansi, Vec out, Vec a, Vec b, long[] zero, long[] active) {
    if (ansi) {
      fallback(k, out, new Vec[] {a, b}, zero, active);
    }
    long[] valid = out.validWords();
    for (int w = 0; w < valid.length; w++) {
      valid[w] &= ~zero[w];
    }
  }

  static final class Binary extends BinaryKernel {
    final int op;
    final boolean ansi;

    Binary(Expression e, int op, boolean ansi, Kernel left, Kernel right) {
      super(e, left, right);
      this.op = op;
      this.ansi = ansi;
    }

    @Override
    void compute(Vec a, Vec b, Vec out, int n, long[] active) {
      if (out.kind == Vec.DOUBLE) {
        doubles(a.doubles, b.doubles, out, n, active, a, b);
        return;
      }
      long[] x = a.longs;
      long[] y = b.longs;
      long[] r = out.longs;
      if (op == REM || op == PMOD) {
        boolean pmod = op == PMOD;
        boolean intSum = bits(type) == 32; // Spark's int r + n wraps; a byte's or short's is an int's, exact
        long[] zero = new long[Vec.words(n)];
        long any = 0;
        for (int i = 0; i < n; i++) {
          long d = y[i];
          long z = d == 0 ? 1L : 0L;
          long m = x[i] % (d | z); // a zero divisor divides by 1 here; the row is null or an error below
          if (pmod && m < 0) {
            long s = m + d; // a long's wraps as Spark's does
            m = (intSum ? (int) s : s) % d; // m < 0: d is not zero
          }
          r[i] = m;
          zero[i >>> 6] |= z << i;
          any |= z;
        }
        if (any != 0) {
          zeroDivisors(this, ansi, out, a, b, zero, active);
        }
        return;
      }
      int width = bits(type);
      long[] overflow = new long[Vec.words(n)];
      long any = 0;
      if (width == 64) {
        switch (op) {
          case ADD -> {
            for (int i = 0; i < n; i++) {
              long s = x[i] + y[i];
              r[i] = s;
              long o = (((x[i] ^ s) & (y[i] ^ s)) >>> 63);
              overflow[i >>> 6] |= o << i;
              any |= o;
            }
          }
          case SUB -> {
            for (int i = 0; i < n; i++) {
              long s = x[i] - y[i];
              r[i] = s;
              long o = (((x[i] ^ y[i]) & (x[i] ^ s)) >>> 63);
              overflow[i >>> 6] |= o << i;
              any |= o;
            }
          }
          default -> {
            for (int i = 0; i < n; i++) {
              long s = x[i] * y[i];
              r[i] = s;
              long o = Math.multiplyHigh(x[i], y[i]) != (s >> 63) ? 1L : 0L;
              overflow[i >>> 6] |= o << i;
              any |= o;
            }
          }
        }
      } else {
        // narrower than long: the exact result fits in a long; overflow when it does not survive the wrap
        for (int i = 0; i < n; i++) {
          long s = switch (op) {
            case ADD -> x[i] + y[i];
            case SUB -> x[i] - y[i];
            default -> x[i] * y[i];
          };
          long wrapped = wrap(s, width);
          r[i] = wrapped;
          long o = wrapped != s ? 1L : 0L;
          overflow[i >>> 6] |= o << i;
          any |= o;
        }
      }
      if (ansi && any != 0) {
        fallback(this, out, new Vec[] {a, b}, overflow, active);
      }
    }

    private void doubles(double[] x, double[] y, Vec out, int n, long[] active, Vec a, Vec b) {
      double[] r = out.doubles;
      boolean isFloat = type instanceof FloatType;
      switch (op) {
        case ADD -> {
          for (int i = 0; i < n; i++) {
            r[i] = x[i] + y[i];
          }
        }
        case SUB -> {
          for (int i = 0; i < n; i++) {
            r[i] = x[i] - y[i];
          }
        }
        case MUL -> {
          for (int i = 0; i < n; i++) {
            r[i] = x[i] * y[i];
          }
        }
        default -> {
          boolean rem = op == REM;
          boolean pmod = op == PMOD;
          long[] zero = new long[Vec.words(n)];
          long any = 0;
          for (int i = 0; i < n; i++) {
            double v = rem || pmod ? x[i] % y[i] : x[i] / y[i];
            if (pmod && v < 0) { // -0.0 and NaN stay
              double s = x[i] % y[i] + y[i]; // a float's % is exact, its sum rounded to float once
              v = (isFloat ? (float) s : s) % y[i];
            }
            r[i] = v;
            long z = y[i] == 0 ? 1L : 0L; // -0.0 == 0 too
            zero[i >>> 6] |= z << i;
            any |= z;
          }
          if (any != 0) {
            zeroDivisors(this, ansi, out, a, b, zero, active);
          }
        }
      }
      if (isFloat) {
        for (int i = 0; i < n; i++) {
          r[i] = (float) r[i];
        }
      }
    }
  }

  /** Unary minus, or with {@code abs} the negation of the negative rows only (Spark's Abs). */
  static final class Negate extends Kernel {
    final boolean ansi;
    final boolean abs;
    final Kernel child;

    Negate(Expression e, boolean ansi, boolean abs, Kernel child) {
      super(e);
      this.ansi = ansi;
      this.abs = abs;
      this.child = child;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      int n = in.rows;
      Vec c = child.eval(in, active);
      Vec out = in.allocate(type, n);
      out.valid = c.valid;
      switch (out.kind) {
        case Vec.DOUBLE -> {
          for (int i = 0; i < n; i++) {
            out.doubles[i] = abs ? Math.abs(c.doubles[i]) : -c.doubles[i];
          }
        }
        case Vec.DECIMAL -> {
          if (c.his == null) {
            for (int i = 0; i < n; i++) {
              long v = c.longs[i];
              out.longs[i] = abs && v >= 0 ? v : -v;
            }
          } else {
            // Spark negates a wide decimal through Scala's BigDecimal, whose MathContext keeps 34 digits: rows
            // with more go to Spark's own expression (it rounds them, or fails)
            Int128 acc = new Int128();
            long[] hard = new long[Vec.words(n)];
            long any = 0;
            for (int i = 0; i < n; i++) {
              acc.set(c.his[i], c.longs[i]);
              long o = acc.fitsPrecision(34) ? 0L : 1L;
              hard[i >>> 6] |= o << i;
              any |= o;
              if (!abs || acc.hi < 0) {
                acc.negate();
              }
              out.his[i] = acc.hi;
              out.longs[i] = acc.lo;
            }
            if (any != 0) {
              out.valid = out.valid == null ? null : out.valid.clone();
              fallback(this, out, new Vec[] {c}, hard, active);
            }
          }
        }
        default -> {
          int width = bits(type);
          long[] overflow = new long[Vec.words(n)];
          long any = 0;
          for (int i = 0; i < n; i++) {
            long v = c.longs[i];
            long neg = abs && v >= 0 ? v : wrap(-v, width);
            out.longs[i] = neg;
            long o = (neg == v && v < 0) ? 1L : 0L; // only the minimum negates to itself
            overflow[i >>> 6] |= o << i;
            any |= o;
          }
          if (ansi && any != 0) {
            out.valid = out.valid == null ? null : out.valid.clone();
            fallback(this, out, new Vec[] {c}, overflow, active);
          }
        }
      }
      return out;
    }
  }
}
