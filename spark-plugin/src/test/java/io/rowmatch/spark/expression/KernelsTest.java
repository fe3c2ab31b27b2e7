package io.rowmatch.spark.expression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.SparkArithmeticException;
import org.apache.spark.sql.catalyst.expressions.Add$;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.Multiply$;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Subtract$;
import org.apache.spark.sql.catalyst.util.StringUtils;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The kernels' building blocks against obvious references: 128-bit arithmetic against BigInteger, years against
 * java.time, LIKE against the regex Spark itself builds (StringUtils.escapeLikeRegex), and decimal + - * against
 * Spark's own Add/Subtract/Multiply evaluated row by row, at precisions 9/18/19/38, overflow included, ANSI on
 * and off.
 */
class KernelsTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private static BigInteger big(Int128 x) {
    return Int128.toBigInteger(x.hi, x.lo);
  }

  private static final BigInteger MIN = BigInteger.ONE.shiftLeft(127).negate();
  private static final BigInteger MAX = BigInteger.ONE.shiftLeft(127).subtract(BigInteger.ONE);

  private static BigInteger random128(Random rnd) {
    int bits = 1 + rnd.nextInt(127);
    BigInteger v = new BigInteger(bits, rnd);
    return rnd.nextBoolean() ? v.negate() : v;
  }

  private static Int128 of(BigInteger v) {
    Int128 x = new Int128();
    x.set(v.shiftRight(64).longValue(), v.longValue());
    return x;
  }

  @Test
  void int128AgreesWithBigInteger() {
    Random rnd = new Random(5);
    for (int i = 0; i < 200_000; i++) {
      BigInteger a = random128(rnd);
      BigInteger b = random128(rnd);
      Int128 x = of(a);
      assertEquals(a, big(x));
      boolean ok = x.add(b.shiftRight(64).longValue(), b.longValue());
      BigInteger sum = a.add(b);
      assertEquals(sum.compareTo(MIN) >= 0 && sum.compareTo(MAX) <= 0, ok, a + " + " + b);
      if (ok) {
        assertEquals(sum, big(x));
      }
      long la = rnd.nextLong() >> rnd.nextInt(64);
      long lb = rnd.nextLong() >> rnd.nextInt(64);
      x.multiply(la, lb);
      assertEquals(BigInteger.valueOf(la).multiply(BigInteger.valueOf(lb)), big(x));
      int k = rnd.nextInt(39);
      x = of(a);
      ok = x.scaleUp(k);
      BigInteger up = a.multiply(BigInteger.TEN.pow(k));
      assertEquals(up.compareTo(MIN) >= 0 && up.compareTo(MAX) <= 0, ok, a + " * 10^" + k);
      if (ok) {
        assertEquals(up, big(x));
      }
      int d = 1 + rnd.nextInt(38);
      x = of(a);
      x.scaleDownHalfUp(d);
      assertEquals(new BigDecimal(a).movePointLeft(d).setScale(0, RoundingMode.HALF_UP).toBigIntegerExact(), big(x),
          a + " / 10^" + d);
      int p = 1 + rnd.nextInt(38);
      assertEquals(a.abs().compareTo(BigInteger.TEN.pow(p)) < 0, of(a).fitsPrecision(p));
    }
    Int128 min = of(MIN);
    assertEquals(false, min.negate());
  }

  @Test
  void yearsAgreeWithJavaTime() {
    for (long d = -800_000; d <= 3_000_000; d += 7) {
      assertEquals(LocalDate.ofEpochDay(d).getYear(), DateKernels.yearOfEpochDay(d), "day " + d);
    }
  }

  @Test
  void likeAgreesWithSparksRegex() {
    Random rnd = new Random(9);
    String[] alphabet = {"a", "b", "%", "_", "\\", "日", "ä", ".", "*", "[", "\n", "$", "😀"};
    int checked = 0;
    for (int i = 0; i < 100_000; i++) {
      StringBuilder pattern = new StringBuilder();
      for (int k = rnd.nextInt(7); k > 0; k--) {
        pattern.append(alphabet[rnd.nextInt(alphabet.length)]);
      }
      String regex;
      try {
        regex = StringUtils.escapeLikeRegex(pattern.toString(), '\\');
      } catch (Exception invalid) { // Spark's error for an escape before another character or at the end
        assertEquals(null, StringKernels.LikePattern.parse(pattern.toString(), '\\'), pattern.toString());
        continue;
      }
      StringKernels.LikePattern like = StringKernels.LikePattern.parse(pattern.toString(), '\\');
      Pattern re = Pattern.compile(regex);
      for (int j = 0; j < 10; j++) {
        StringBuilder value = new StringBuilder();
        for (int k = rnd.nextInt(8); k > 0; k--) {
          String c = alphabet[rnd.nextInt(alphabet.length)];
          value.append(c.equals("%") || c.equals("_") ? (rnd.nextBoolean() ? c : "a") : c);
        }
        byte[] bytes = value.toString().getBytes(StandardCharsets.UTF_8);
        assertEquals(re.matcher(value).matches(), like.matches(bytes, 0, bytes.length),
            "'" + value + "' LIKE '" + pattern + "'");
        checked++;
      }
    }
    assertEquals(true, checked > 500_000);
  }

  @Test
  void validUtf8AgreesWithJavasDecoder() {
    Random rnd = new Random(2);
    for (int i = 0; i < 200_000; i++) {
      byte[] b = new byte[rnd.nextInt(6)];
      for (int k = 0; k < b.length; k++) {
        b[k] = (byte) (rnd.nextBoolean() ? 0x80 + rnd.nextInt(0x80) : rnd.nextInt(256));
      }
      boolean decodes = true;
      try {
        StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
      } catch (java.nio.charset.CharacterCodingException e) {
        decodes = false;
      }
      assertEquals(decodes, StringKernels.validUtf8(b, 0, b.length), java.util.Arrays.toString(b));
    }
  }

  // ---- decimal arithmetic against Spark's own expressions ----

  private DecimalVector decimals(String name, DecimalType t, BigDecimal[] values) {
    DecimalVector v = new DecimalVector(name, allocator, t.precision(), t.scale());
    v.allocateNew(Math.max(values.length, 1));
    for (int i = 0; i < values.length; i++) {
      if (values[i] != null) {
        v.set(i, values[i]);
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  private static BigDecimal randomDecimal(Random rnd, DecimalType t) {
    if (rnd.nextInt(10) == 0) {
      return null;
    }
    int p = t.precision();
    int digits = switch (rnd.nextInt(4)) {
      case 0 -> p;
      case 1 -> 1;
      default -> 1 + rnd.nextInt(p);
    };
    StringBuilder s = new StringBuilder(rnd.nextBoolean() ? "-" : "");
    for (int i = 0; i < digits; i++) {
      s.append(rnd.nextInt(10));
    }
    if (rnd.nextInt(6) == 0) {
      s.setLength(0);
      s.append(rnd.nextBoolean() ? "-" : "").append("9".repeat(p)); // the type's extremes
    }
    return new BigDecimal(new BigInteger(s.toString()), t.scale());
  }

  @Test
  void decimalArithmeticEqualsSparks() {
    DecimalType[] types = {new DecimalType(9, 2), new DecimalType(18, 4), new DecimalType(19, 0),
        new DecimalType(38, 10), new DecimalType(38, 0), new DecimalType(10, 0), new DecimalType(16, 2)};
    Random rnd = new Random(11);
    int n = 300;
    for (DecimalType lt : types) {
      for (DecimalType rt : types) {
        BigDecimal[] l = new BigDecimal[n];
        BigDecimal[] r = new BigDecimal[n];
        for (int i = 0; i < n; i++) {
          l[i] = randomDecimal(rnd, lt);
          r[i] = randomDecimal(rnd, rt);
        }
        for (String mode : new String[] {"LEGACY", "ANSI"}) {
          for (int op = 0; op < 3; op++) {
            check(lt, rt, l, r, op, mode);
          }
        }
      }
    }
  }

  private void check(DecimalType lt, DecimalType rt, BigDecimal[] l, BigDecimal[] r, int op, String mode) {
    Expression a = new BoundReference(0, lt, true);
    Expression b = new BoundReference(1, rt, true);
    var evalMode = mode.equals("ANSI") ? EvalMode$.MODULE$.ANSI() : EvalMode$.MODULE$.LEGACY();
    Expression e = switch (op) {
      case 0 -> Add$.MODULE$.apply(a, b, evalMode);
      case 1 -> Subtract$.MODULE$.apply(a, b, evalMode);
      default -> Multiply$.MODULE$.apply(a, b, evalMode);
    };
    int n = l.length;
    Object[] expected = new Object[n];
    boolean sparkFails = false;
    for (int i = 0; i < n; i++) {
      GenericInternalRow row = new GenericInternalRow(new Object[] {
          l[i] == null ? null : Decimal.apply(l[i]), r[i] == null ? null : Decimal.apply(r[i])});
      try {
        expected[i] = e.eval(row);
      } catch (SparkArithmeticException ex) {
        sparkFails = true;
      }
    }
    List<Attribute> input = new ArrayList<>();
    DataType[] inTypes = {lt, rt};
    for (int c = 0; c < 2; c++) {
      input.add(new AttributeReference("c" + c, inTypes[c], true, Metadata.empty(), NamedExpression.newExprId(),
          CollectionConverters.asScala(List.<String>of()).toSeq()));
    }
    ColumnarExpressions compiled = ColumnarExpressions.compile(
        CollectionConverters.asScala(List.of(e)).toSeq(), CollectionConverters.asScala(input).toSeq());
    try (DecimalVector lv = decimals("l", lt, l); DecimalVector rv = decimals("r", rt, r)) {
      ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(lv),
          new ArrowColumnVector(rv)}, n);
      String what = e.sql() + " " + mode + " over " + lt.simpleString() + ", " + rt.simpleString();
      if (sparkFails) {
        assertThrows(SparkArithmeticException.class,
            () -> compiled.evaluate(compiled.open(batch), 0, "e", true, "UTC", allocator).close(), what);
        return;
      }
      try (FieldVector out = compiled.evaluate(compiled.open(batch), 0, "e", true, "UTC", allocator)) {
        DecimalType ot = (DecimalType) e.dataType();
        for (int i = 0; i < n; i++) {
          Object want = expected[i] == null ? null : ((Decimal) expected[i]).toJavaBigDecimal().setScale(ot.scale());
          Object got = out.isNull(i) ? null : ((DecimalVector) out).getObject(i);
          assertEquals(want, got, what + " row " + i + ": " + l[i] + ", " + r[i]);
        }
      }
    }
  }

}
