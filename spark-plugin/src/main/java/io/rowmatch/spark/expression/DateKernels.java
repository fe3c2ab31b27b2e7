package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.BinaryExpression;
import org.apache.spark.sql.catalyst.expressions.DateSub;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Year;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.ShortType;

/**
 * year(date) (and extract(year from date), which Spark rewrites to it), in the proleptic Gregorian calendar;
 * date_add / date_sub of int, short or byte days: Spark's int day number plus or minus the days in int
 * arithmetic, which wraps on overflow with ANSI on or off (Spark's DateAdd and DateSub never raise).
 */
final class DateKernels {
  private DateKernels() {}

  static Kernel dateAddSub(Expression e, ExpressionPlanning p) {
    BinaryExpression b = (BinaryExpression) e;
    DataType days = b.right().dataType();
    if (!(b.left().dataType() instanceof DateType)
        || !(days instanceof IntegerType || days instanceof ShortType || days instanceof ByteType)) {
      throw p.refuse(e.prettyName() + " of " + b.left().dataType().simpleString() + " and " + days.simpleString()
          + " is not evaluated columnar: " + e.sql());
    }
    return new AddDays(e, e instanceof DateSub, p.child(b.left()), p.child(b.right()));
  }

  /** A date's day number plus (or minus) days, wrapped to int as Spark's {@code start + days}. */
  static final class AddDays extends BinaryKernel {
    final boolean sub;

    AddDays(Expression e, boolean sub, Kernel start, Kernel days) {
      super(e, start, days);
      this.sub = sub;
    }

    @Override
    void compute(Vec a, Vec b, Vec out, int n, long[] active) {
      long[] x = a.longs;
      long[] y = b.longs;
      long[] r = out.longs;
      if (sub) {
        for (int i = 0; i < n; i++) {
          r[i] = (int) (x[i] - y[i]);
        }
      } else {
        for (int i = 0; i < n; i++) {
          r[i] = (int) (x[i] + y[i]);
        }
      }
    }
  }

  static Kernel year(Expression e, ExpressionPlanning p) {
    Year y = (Year) e;
    if (!(y.child().dataType() instanceof DateType)) {
      throw p.refuse("year of " + y.child().dataType().simpleString() + ": " + e.sql());
    }
    return new YearKernel(e, p.child(y.child()));
  }

  /** The year of a day count since 1970-01-01 (as java.time.LocalDate.ofEpochDay(days).getYear()). */
  static long yearOfEpochDay(long days) {
    long z = days + 719468;
    long era = (z >= 0 ? z : z - 146096) / 146097;
    long doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    return yoe + era * 400 + (mp >= 10 ? 1 : 0);
  }

  static final class YearKernel extends Kernel {
    final Kernel child;

    YearKernel(Expression e, Kernel child) {
      super(e);
      this.child = child;
    }

    @Override
    Vec eval(EvalBatch in, long[] active) {
      Vec c = child.eval(in, active);
      int n = in.rows;
      Vec out = in.allocate(type, n);
      out.valid = c.valid;
      for (int i = 0; i < n; i++) {
        out.longs[i] = yearOfEpochDay(c.longs[i]);
      }
      return out;
    }
  }
}
