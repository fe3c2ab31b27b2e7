package io.rowmatch.spark.expression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One expression over bound columns, evaluated by the kernels over Arrow vectors and by Spark's own
 * {@code Expression.eval} on each row: the same value in every row (exact: NaN payloads aside, -0.0 is not 0.0,
 * decimals compared at the result scale), or, when Spark raises on some row, the kernels raise the same exception
 * class. Plus random Spark values of a type with its edges (nulls, extremes, zeros, NaN, -0.0, decimals of every
 * digit count up to the precision and at 10^p - 1; strings empty, multibyte, and past 64 bytes; dates at the int
 * extremes and far from 1970).
 */
final class SparkDifferential {
  private SparkDifferential() {}

  static final int[] SIZES = {0, 1, 63, 64, 65, 300};

  /** {@link #check} of every expression over {@code rounds} random batches of the sizes in turn (UTC). */
  static void checkRandom(BufferAllocator allocator, java.util.Random rnd, int rounds, DataType[] types,
      Iterable<Expression> exprs) {
    for (int round = 0; round < rounds; round++) {
      Object[][] rows = rows(rnd, SIZES[round % SIZES.length], types);
      for (Expression e : exprs) {
        check(allocator, e, types, rows, "UTC");
      }
    }
  }

  /** Asserts the kernels' answer for {@code e} equals Spark's over {@code rows} (Spark internal values). */
  static void check(BufferAllocator allocator, Expression e, DataType[] types, Object[][] rows, String timeZone) {
    int n = rows.length;
    Object[] expected = new Object[n];
    RuntimeException sparkError = null;
    for (int i = 0; i < n && sparkError == null; i++) {
      try {
        expected[i] = e.eval(new GenericInternalRow(rows[i].clone()));
      } catch (RuntimeException ex) {
        sparkError = ex;
      }
    }
    ColumnarExpressions compiled = ColumnarExpressions.compileBound(new Expression[] {e}, types);
    assertEquals(true, compiled != null, "not compiled: " + e.sql());
    // The compiled form first evaluates other rows (these reversed, twice over): the batch checked below reuses the
    // arrays that batch's vectors left, longer than its rows and holding other values.
    Object[][] other = new Object[2 * n][];
    for (int i = 0; i < n; i++) {
      other[i] = rows[n - 1 - i];
      other[n + i] = rows[i];
    }
    evaluateIgnoringErrors(allocator, compiled, types, other, timeZone);
    FieldVector[] in = new FieldVector[types.length];
    try {
      ColumnVector[] cols = new ColumnVector[types.length];
      for (int c = 0; c < types.length; c++) {
        Object[] column = new Object[n];
        for (int i = 0; i < n; i++) {
          column[i] = rows[i][c];
        }
        in[c] = arrow(allocator, "c" + c, types[c], column, timeZone);
        cols[c] = new ArrowColumnVector(in[c]);
      }
      ColumnarBatch batch = new ColumnarBatch(cols, n);
      String what = e.sql() + " over " + n + " rows";
      if (sparkError != null) {
        Class<? extends RuntimeException> kind = sparkError.getClass();
        assertThrows(kind, () -> compiled.evaluate(compiled.open(batch), 0, "e", true, timeZone, allocator).close(),
            what + ": Spark raised " + sparkError);
        return;
      }
      try (FieldVector out = compiled.evaluate(compiled.open(batch), 0, "e", true, timeZone, allocator)) {
        for (int i = 0; i < n; i++) {
          Object want = normalize(expected[i], e.dataType());
          Object got = out.isNull(i) ? null : normalize(out.getObject(i), e.dataType());
          assertEquals(want, got, what + " row " + i + ": " + java.util.Arrays.toString(rows[i]));
        }
      }
    } finally {
      for (FieldVector v : in) {
        if (v != null) {
          v.close();
        }
      }
    }
  }

  private static void evaluateIgnoringErrors(BufferAllocator allocator, ColumnarExpressions compiled, DataType[] types,
      Object[][] rows, String timeZone) {
    FieldVector[] in = new FieldVector[types.length];
    try {
      ColumnVector[] cols = new ColumnVector[types.length];
      for (int c = 0; c < types.length; c++) {
        Object[] column = new Object[rows.length];
        for (int i = 0; i < rows.length; i++) {
          column[i] = rows[i][c];
        }
        in[c] = arrow(allocator, "c" + c, types[c], column, timeZone);
        cols[c] = new ArrowColumnVector(in[c]);
      }
      ColumnarBatch batch = new ColumnarBatch(cols, rows.length);
      compiled.evaluate(compiled.open(batch), 0, "e", true, timeZone, allocator).close();
    } catch (RuntimeException ex) {
      // Spark's error on one of these rows: checked with the rows themselves
    } finally {
      for (FieldVector v : in) {
        if (v != null) {
          v.close();
        }
      }
    }
  }

  private static Object normalize(Object v, DataType t) {
    if (v == null) {
      return null;
    }
    if (v instanceof Decimal d) {
      return d.toJavaBigDecimal().setScale(((DecimalType) t).scale());
    }
    if (v instanceof BigDecimal d) {
      return d.setScale(((DecimalType) t).scale());
    }
    if (v instanceof UTF8String || v instanceof org.apache.arrow.vector.util.Text) {
      return v.toString();
    }
    if (v instanceof java.time.LocalDate d) {
      return (int) d.toEpochDay();
    }
    if (v instanceof java.time.LocalDateTime d) {
      java.time.Instant at = d.toInstant(java.time.ZoneOffset.UTC);
      return at.getEpochSecond() * 1_000_000L + at.getNano() / 1000;
    }
    return v;
  }

  static FieldVector arrow(BufferAllocator allocator, String name, DataType t, Object[] values, String timeZone) {
    int n = values.length;
    FieldVector v;
    if (t instanceof ByteType) {
      TinyIntVector x = new TinyIntVector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Byte) values[i]);
        }
      }
      v = x;
    } else if (t instanceof ShortType) {
      SmallIntVector x = new SmallIntVector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Short) values[i]);
        }
      }
      v = x;
    } else if (t instanceof IntegerType) {
      IntVector x = new IntVector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Integer) values[i]);
        }
      }
      v = x;
    } else if (t instanceof DateType) {
      DateDayVector x = new DateDayVector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Integer) values[i]);
        }
      }
      v = x;
    } else if (t instanceof LongType) {
      BigIntVector x = new BigIntVector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Long) values[i]);
        }
      }
      v = x;
    } else if (t instanceof TimestampType) {
      TimeStampMicroTZVector x = new TimeStampMicroTZVector(name, allocator, timeZone);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Long) values[i]);
        }
      }
      v = x;
    } else if (t instanceof FloatType) {
      Float4Vector x = new Float4Vector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Float) values[i]);
        }
      }
      v = x;
    } else if (t instanceof DoubleType) {
      Float8Vector x = new Float8Vector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, (Double) values[i]);
        }
      }
      v = x;
    } else if (t instanceof DecimalType d) {
      DecimalVector x = new DecimalVector(name, allocator, d.precision(), d.scale());
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.set(i, ((Decimal) values[i]).toJavaBigDecimal().setScale(d.scale()));
        }
      }
      v = x;
    } else if (t instanceof StringType) {
      VarCharVector x = new VarCharVector(name, allocator);
      x.allocateNew(Math.max(n, 1));
      for (int i = 0; i < n; i++) {
        if (values[i] != null) {
          x.setSafe(i, values[i].toString().getBytes(StandardCharsets.UTF_8));
        }
      }
      v = x;
    } else {
      throw new IllegalArgumentException("no test vector for " + t.simpleString());
    }
    v.setValueCount(n);
    return v;
  }

  /** A random Spark internal value of {@code t}: null 1 in 10, an edge 1 in 3. */
  static Object value(Random rnd, DataType t) {
    if (rnd.nextInt(10) == 0) {
      return null;
    }
    boolean edge = rnd.nextInt(3) == 0;
    if (t instanceof ByteType) {
      byte[] e = {Byte.MIN_VALUE, Byte.MAX_VALUE, 0, -1, 1};
      return edge ? e[rnd.nextInt(e.length)] : (byte) rnd.nextInt(256);
    } else if (t instanceof ShortType) {
      short[] e = {Short.MIN_VALUE, Short.MAX_VALUE, 0, -1, 1};
      return edge ? e[rnd.nextInt(e.length)] : (short) rnd.nextInt(65536);
    } else if (t instanceof IntegerType) {
      int[] e = {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1};
      return edge ? e[rnd.nextInt(e.length)] : rnd.nextInt() >> rnd.nextInt(32);
    } else if (t instanceof LongType) {
      long[] e = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1};
      return edge ? e[rnd.nextInt(e.length)] : rnd.nextLong() >> rnd.nextInt(64);
    } else if (t instanceof FloatType) {
      float[] e = {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MAX_VALUE,
          Float.MIN_VALUE, Float.intBitsToFloat(0x7fc00123), 2.5f, -2.5f, 0.5f};
      return edge ? e[rnd.nextInt(e.length)] : (rnd.nextInt(20000) - 10000) / 64.0f;
    } else if (t instanceof DoubleType) {
      double[] e = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MAX_VALUE,
          Double.MIN_VALUE, Double.longBitsToDouble(0x7ff8000000000123L), 2.5, -2.5, 0.5, 1e300, -1.5e-300, 0.285, 1.005, -2.675,
          1e15 + 0.5, 0x1p53, -0x1p60 - 4096, 123456.785};
      return edge ? e[rnd.nextInt(e.length)]
          : rnd.nextBoolean() ? (rnd.nextInt(200000) - 100000) / 256.0 : rnd.nextGaussian() * Math.pow(10, rnd.nextInt(40) - 20);
    } else if (t instanceof DecimalType d) {
      return Decimal.apply(decimal(rnd, d), d.precision(), d.scale());
    } else if (t instanceof StringType) {
      String[] e = {"", "a", "ab", "ä日本", "日本語x", "%", "_", "\\", "a b", "x".repeat(70)};
      if (edge) {
        return UTF8String.fromString(e[rnd.nextInt(e.length)]);
      }
      StringBuilder s = new StringBuilder();
      for (int i = rnd.nextInt(12); i > 0; i--) {
        s.appendCodePoint(rnd.nextInt(4) == 0 ? 0x3040 + rnd.nextInt(96) : 'a' + rnd.nextInt(26));
      }
      return UTF8String.fromString(s.toString());
    } else if (t instanceof DateType) {
      // days since 1970: the int extremes, 0001-01-01, 1582-10-04 (before the Gregorian switch), 1969-12-31,
      // 9999-12-31, and far past and future
      int[] e = {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, -719162, -141428, 2932896, -100_000_000, 100_000_000};
      return edge ? e[rnd.nextInt(e.length)] : rnd.nextInt(2_000_000) - 1_000_000;
    }
    throw new IllegalArgumentException("no random values of " + t.simpleString());
  }

  /** A decimal of the type: 0, 1 digit, all p digits, p nines (the extreme), or a random digit count. */
  static BigDecimal decimal(Random rnd, DecimalType t) {
    int p = t.precision();
    String sign = rnd.nextBoolean() ? "-" : "";
    String digits = switch (rnd.nextInt(7)) {
      case 0 -> "0";
      case 1 -> "9".repeat(p);
      case 2 -> "1" + "0".repeat(p - 1);
      case 3 -> Integer.toString(1 + rnd.nextInt(9));
      default -> {
        StringBuilder s = new StringBuilder();
        for (int i = 1 + rnd.nextInt(p); i > 0; i--) {
          s.append(rnd.nextInt(10));
        }
        yield s.toString();
      }
    };
    return new BigDecimal(new BigInteger(sign + digits), t.scale());
  }

  static Object[][] rows(Random rnd, int n, DataType... types) {
    Object[][] rows = new Object[n][types.length];
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < types.length; c++) {
        rows[i][c] = value(rnd, types[c]);
      }
    }
    return rows;
  }
}
