package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Year;
import org.apache.spark.sql.types.DateType;

/** year(date) (and extract(year from date), which Spark rewrites to it), in the proleptic Gregorian calendar. */
final class DateKernels {
  private DateKernels() {}

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
      Vec out = Vec.allocate(type, n);
      out.valid = c.valid;
      for (int i = 0; i < n; i++) {
        out.longs[i] = yearOfEpochDay(c.longs[i]);
      }
      return out;
    }
  }
}
