package io.rowmatch.spark.expression;

import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Casts among integral, floating and decimal types (and a type to itself): integral narrowing wraps (LEGACY) or
 * fails (ANSI); integral to float or double rounds once, as Java's conversion; to decimal and between decimals the
 * value is rescaled half up, and a value over the target precision is null (LEGACY) or Spark's error (ANSI),
 * those rows going to Spark's own Cast. Dates and timestamps, in the cast's (session) time zone: a date to a
 * timestamp is its local midnight, a timestamp to a date the local date of its instant (arithmetic for a fixed
 * offset, Spark's DateTimeUtils per row for a zone with transitions); a string to a date is Spark's own parser
 * (DateTimeUtils.stringToDate, per row), an unparsable string null, or Spark's CAST_INVALID_INPUT under ANSI.
 * Floating to integral or decimal, and other casts from or to strings, dates and booleans, stay Spark's.
 */
final class CastKernel extends Kernel {
  private static final int IDENTITY = 0;
  private static final int INTEGRAL = 1;
  private static final int INTEGRAL_TO_FLOATING = 2;
  private static final int FLOATING = 3;
  private static final int TO_DECIMAL = 4;
  private static final int DATE_TO_TIMESTAMP = 5;
  private static final int TIMESTAMP_TO_DATE = 6;
  private static final int STRING_TO_DATE = 7;

  final Kernel child;
  final int how;
  final boolean ansi;
  final int fromScale;
  /** The cast's time zone for dates and timestamps (null otherwise), and its offset if fixed. */
  final java.time.ZoneId zone;
  final Integer fixedOffsetSeconds;

  private CastKernel(Expression e, Kernel child, int how, boolean ansi, int fromScale, java.time.ZoneId zone) {
    super(e);
    this.child = child;
    this.how = how;
    this.ansi = ansi;
    this.fromScale = fromScale;
    this.zone = zone;
    this.fixedOffsetSeconds = zone != null && zone.getRules().isFixedOffset()
        ? zone.getRules().getOffset(java.time.Instant.EPOCH).getTotalSeconds() : null;
  }

  static Kernel plan(Expression e, ExpressionPlanning p) {
    Cast c = (Cast) e;
    DataType from = p.checkType(c.child().dataType(), e);
    DataType to = p.checkType(c.dataType(), e);
    boolean ansi = p.ansi(c.evalMode().toString(), e);
    int how;
    int fromScale = 0;
    if (from.sameType(to) && !(from instanceof org.apache.spark.sql.types.StringType)) {
      how = IDENTITY;
    } else if (ArithmeticKernels.integral(from) && ArithmeticKernels.integral(to)) {
      how = INTEGRAL;
    } else if (ArithmeticKernels.integral(from) && (to instanceof FloatType || to instanceof DoubleType)) {
      how = INTEGRAL_TO_FLOATING;
    } else if ((from instanceof FloatType || from instanceof DoubleType)
        && (to instanceof FloatType || to instanceof DoubleType)) {
      how = FLOATING;
    } else if (to instanceof DecimalType && (ArithmeticKernels.integral(from) || from instanceof DecimalType)) {
      how = TO_DECIMAL;
      fromScale = from instanceof DecimalType d ? d.scale() : 0;
    } else if (from instanceof DateType && to instanceof TimestampType) {
      how = DATE_TO_TIMESTAMP;
    } else if (from instanceof TimestampType && to instanceof DateType) {
      how = TIMESTAMP_TO_DATE;
    } else if (from instanceof StringType && to instanceof DateType) {
      how = STRING_TO_DATE;
    } else {
      throw p.refuse("cast from " + from.simpleString() + " to " + to.simpleString()
          + " is not evaluated columnar: " + e.sql());
    }
    java.time.ZoneId zone = null;
    if (how == DATE_TO_TIMESTAMP || how == TIMESTAMP_TO_DATE) {
      if (c.timeZoneId().isEmpty()) {
        throw p.refuse("cast without a time zone: " + e.sql());
      }
      zone = c.zoneId();
    }
    if (how == IDENTITY && from instanceof DateType) {
      how = IDENTITY;
    }
    return new CastKernel(e, p.child(c.child()), how, ansi, fromScale, zone);
  }

  @Override
  Vec eval(EvalBatch in, long[] active) {
    Vec c = child.eval(in, active);
    if (how == IDENTITY) {
      return c;
    }
    int n = in.rows;
    Vec out = in.allocate(type, n);
    out.valid = c.valid == null ? null : c.valid.clone();
    long[] hard = new long[Vec.words(n)];
    long any = 0;
    switch (how) {
      case INTEGRAL -> {
        int width = ArithmeticKernels.bits(type);
        for (int i = 0; i < n; i++) {
          long v = c.longs[i];
          long w = ArithmeticKernels.wrap(v, width);
          out.longs[i] = w;
          long o = w != v ? 1L : 0L;
          hard[i >>> 6] |= o << i;
          any |= o;
        }
        if (!ansi) {
          any = 0; // LEGACY wraps
        }
      }
      case INTEGRAL_TO_FLOATING -> {
        boolean isFloat = type instanceof FloatType;
        for (int i = 0; i < n; i++) {
          out.doubles[i] = isFloat ? (double) (float) c.longs[i] : (double) c.longs[i];
        }
      }
      case FLOATING -> {
        boolean isFloat = type instanceof FloatType;
        for (int i = 0; i < n; i++) {
          out.doubles[i] = isFloat ? (double) (float) c.doubles[i] : c.doubles[i];
        }
      }
      case DATE_TO_TIMESTAMP -> any = dateToTimestamp(c, out, n, hard);
      case TIMESTAMP_TO_DATE -> timestampToDate(c, out, n);
      case STRING_TO_DATE -> any = stringToDate(c, out, n, hard);
      default -> any = toDecimal(c, out, n, hard);
    }
    if (any != 0) {
      for (int w = 0; w < hard.length; w++) {
        long inactive = hard[w] & ~(active == null ? -1L : active[w]);
        if (inactive != 0) {
          out.validWords()[w] &= ~inactive;
        }
      }
      ArithmeticKernels.fallback(this, out, new Vec[] {c}, hard, active);
    }
    return out;
  }

  private long toDecimal(Vec c, Vec out, int n, long[] hard) {
    DecimalType t = (DecimalType) type;
    int precision = t.precision();
    int shift = t.scale() - fromScale;
    Int128 x = new Int128();
    long any = 0;
    for (int i = 0; i < n; i++) {
      x.set(c.his == null ? c.longs[i] >> 63 : c.his[i], c.longs[i]);
      boolean ok = true;
      if (shift > 0) {
        ok = x.scaleUp(shift);
      } else if (shift < 0) {
        x.scaleDownHalfUp(-shift);
      }
      ok = ok && x.fitsPrecision(precision);
      any |= out.putDecimal(i, x, ok, hard);
    }
    return any;
  }

  private static final long MICROS_PER_SECOND = 1_000_000L;
  private static final long SECONDS_PER_DAY = 86_400L;

  /** Local midnight of each day as microseconds; a value past the long range is Spark's (its error). */
  private long dateToTimestamp(Vec c, Vec out, int n, long[] hard) {
    long any = 0;
    for (int i = 0; i < n; i++) {
      if (!c.isValid(i)) {
        continue;
      }
      int day = (int) c.longs[i];
      try {
        out.longs[i] = fixedOffsetSeconds != null
            ? Math.multiplyExact(day * SECONDS_PER_DAY - fixedOffsetSeconds, MICROS_PER_SECOND)
            : org.apache.spark.sql.catalyst.util.DateTimeUtils$.MODULE$.daysToMicros(day, zone);
      } catch (ArithmeticException overflow) {
        hard[i >>> 6] |= 1L << i;
        any = 1;
      }
    }
    return any;
  }

  /** The local date of each instant (seconds floored first, as Spark's microsToInstant). */
  private void timestampToDate(Vec c, Vec out, int n) {
    for (int i = 0; i < n; i++) {
      long micros = c.longs[i];
      if (fixedOffsetSeconds != null) {
        out.longs[i] = Math.floorDiv(Math.floorDiv(micros, MICROS_PER_SECOND) + fixedOffsetSeconds, SECONDS_PER_DAY);
      } else if (c.isValid(i)) {
        out.longs[i] = org.apache.spark.sql.catalyst.util.DateTimeUtils$.MODULE$.microsToDays(micros, zone);
      }
    }
  }

  /** Spark's parser per string; an unparsable one is null, or (ANSI) handed to Spark for its error. */
  private long stringToDate(Vec c, Vec out, int n, long[] hard) {
    long any = 0;
    long[] valid = out.validWords();
    for (int i = 0; i < n; i++) {
      if (!c.isValid(i)) {
        continue;
      }
      scala.Option<Object> day = org.apache.spark.sql.catalyst.util.DateTimeUtils$.MODULE$.stringToDate(
          org.apache.spark.unsafe.types.UTF8String.fromBytes(c.data, c.starts[i], c.lens[i]));
      if (day.isDefined()) {
        out.longs[i] = (Integer) day.get();
      } else if (ansi) {
        hard[i >>> 6] |= 1L << i;
        any = 1;
      } else {
        valid[i >>> 6] &= ~(1L << i);
      }
    }
    return any;
  }
}
