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

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.SparkArithmeticException;
import org.apache.spark.sql.catalyst.expressions.Add$;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.MakeDecimal;
import org.apache.spark.sql.catalyst.expressions.Multiply$;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.Subtract$;
import org.apache.spark.sql.catalyst.expressions.UnscaledValue;
import org.apache.spark.sql.catalyst.util.StringUtils;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * The kernels' building blocks against obvious references: 128-bit arithmetic against BigInteger, years against
 * java.time, LIKE against the regex Spark itself builds (StringUtils.escapeLikeRegex), and decimal + - * against
 * Spark's own Add/Subtract/Multiply evaluated row by row, at precisions 9/18/19/38, overflow included, ANSI on
 * and off.
 */
class KernelsTest extends AllocatorTest {
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
      x = of(a);
      x.scaleDown(d, true);
      assertEquals(new BigDecimal(a).movePointLeft(d).setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact(),
          big(x), a + " / 10^" + d + " half even");
      BigInteger tie = a.divide(BigInteger.TEN.pow(d)).multiply(BigInteger.TEN.pow(d)).add(BigInteger.TEN.pow(d)
          .shiftRight(1)); // an exact half: ties go to the even quotient
      if (tie.bitLength() < 127) {
        x = of(tie);
        x.scaleDown(d, true);
        assertEquals(new BigDecimal(tie).movePointLeft(d).setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact(),
            big(x), tie + " / 10^" + d + " half even");
      }
      int p = 1 + rnd.nextInt(38);
      assertEquals(a.abs().compareTo(BigInteger.TEN.pow(p)) < 0, of(a).fitsPrecision(p));
      long divisor = rnd.nextLong() >>> rnd.nextInt(64);
      if (divisor != 0) {
        BigInteger ud = new BigInteger(Long.toUnsignedString(divisor));
        BigInteger m = a.abs().compareTo(MAX) > 0 ? MAX : a.abs();
        x = of(m);
        long rem = x.divideUnsigned(divisor);
        assertEquals(m.divide(ud), big(x), m + " / " + ud);
        assertEquals(m.mod(ud), new BigInteger(Long.toUnsignedString(rem)), m + " % " + ud);
      }
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


  // ---- filters evaluated on the rows still needing them, against Spark's evaluation of every row ----

  private static final DecimalType D92 = new DecimalType(9, 2);
  private static final String[] STRINGS = {"", "a", "AIR", "AIR REG", "日本", "DELIVER IN PERSON", "ä", "REG AIR"};
  private static final Expression C0 = new BoundReference(0, DataTypes.IntegerType, true);
  private static final Expression C1 = new BoundReference(1, DataTypes.StringType, true);
  private static final Expression C2 = new BoundReference(2, D92, true);

  private static Literal intLit(Random rnd) {
    return rnd.nextInt(12) == 0 ? new Literal(null, DataTypes.IntegerType)
        : new Literal(rnd.nextInt(40) - 20, DataTypes.IntegerType);
  }

  private static Literal strLit(Random rnd) {
    return new Literal(UTF8String.fromString(STRINGS[rnd.nextInt(STRINGS.length)]), DataTypes.StringType);
  }

  private static Literal decLit(Random rnd) {
    return new Literal(Decimal.apply(BigDecimal.valueOf(rnd.nextInt(4000) - 2000, 2), 9, 2), D92);
  }

  private static Expression compare(Random rnd, Expression a, Expression b) {
    return switch (rnd.nextInt(5)) {
      case 0 -> new EqualTo(a, b);
      case 1 -> new LessThan(a, b);
      case 2 -> new LessThanOrEqual(a, b);
      case 3 -> new GreaterThan(a, b);
      default -> new GreaterThanOrEqual(a, b);
    };
  }

  private static Expression leaf(Random rnd) {
    switch (rnd.nextInt(9)) {
      case 0:
        return compare(rnd, C0, intLit(rnd));
      case 1:
        return compare(rnd, intLit(rnd), C0); // a literal on the left
      case 2:
        return rnd.nextBoolean() ? new EqualTo(C1, strLit(rnd)) : compare(rnd, C1, strLit(rnd));
      case 3: {
        List<Expression> items = new ArrayList<>();
        for (int k = rnd.nextInt(4); k >= 0; k--) {
          items.add(strLit(rnd));
        }
        if (rnd.nextInt(4) == 0) {
          items.add(new Literal(null, DataTypes.StringType));
        }
        return new In(C1, CollectionConverters.asScala(items).toSeq());
      }
      case 4: {
        List<Expression> items = new ArrayList<>();
        for (int k = rnd.nextInt(4); k >= 0; k--) {
          items.add(intLit(rnd));
        }
        return new In(C0, CollectionConverters.asScala(items).toSeq());
      }
      case 5:
        return compare(rnd, C2, decLit(rnd));
      case 6:
        return new IsNull(rnd.nextBoolean() ? C0 : C1);
      case 7:
        return new IsNotNull(rnd.nextBoolean() ? C1 : C2);
      default:
        return compare(rnd, Add$.MODULE$.apply(C0, intLit(rnd), EvalMode$.MODULE$.LEGACY()), intLit(rnd));
    }
  }

  private static Expression predicate(Random rnd, int depth) {
    if (depth == 0 || rnd.nextInt(4) == 0) {
      return leaf(rnd);
    }
    return switch (rnd.nextInt(5)) {
      case 0, 1 -> new And(predicate(rnd, depth - 1), predicate(rnd, depth - 1));
      case 2, 3 -> new Or(predicate(rnd, depth - 1), predicate(rnd, depth - 1));
      default -> new Not(predicate(rnd, depth - 1));
    };
  }

  private ColumnarBatch filterInput(Random rnd, int n, Object[][] rows, List<FieldVector> open) {
    IntVector c0 = new IntVector("c0", allocator);
    VarCharVector c1 = new VarCharVector("c1", allocator);
    c0.allocateNew(Math.max(n, 1));
    c1.allocateNew(Math.max(n, 1));
    open.add(c0);
    open.add(c1);
    BigDecimal[] decs = new BigDecimal[n];
    boolean nulls = rnd.nextBoolean(); // a batch without nulls takes the no-validity paths
    for (int i = 0; i < n; i++) {
      Integer a = nulls && rnd.nextInt(8) == 0 ? null : rnd.nextInt(40) - 20;
      String b = nulls && rnd.nextInt(8) == 0 ? null : STRINGS[rnd.nextInt(STRINGS.length)];
      decs[i] = nulls && rnd.nextInt(8) == 0 ? null : BigDecimal.valueOf(rnd.nextInt(4000) - 2000, 2);
      if (a != null) {
        c0.set(i, a);
      }
      if (b != null) {
        c1.setSafe(i, b.getBytes(StandardCharsets.UTF_8));
      }
      rows[i] = new Object[] {a, b == null ? null : UTF8String.fromString(b),
          decs[i] == null ? null : Decimal.apply(decs[i], 9, 2)};
    }
    c0.setValueCount(n);
    c1.setValueCount(n);
    DecimalVector c2 = decimals("c2", D92, decs);
    open.add(c2);
    return new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(c0), new ArrowColumnVector(c1),
        new ArrowColumnVector(c2)}, n);
  }

  private static List<Integer> expectedKept(Expression[] conjuncts, Object[][] rows) {
    List<Integer> kept = new ArrayList<>();
    for (int i = 0; i < rows.length; i++) {
      boolean all = true;
      for (Expression c : conjuncts) {
        if (!Boolean.TRUE.equals(c.eval(new GenericInternalRow(rows[i])))) {
          all = false; // Spark's filter evaluates no later conjunct
          break;
        }
      }
      if (all) {
        kept.add(i);
      }
    }
    return kept;
  }

  private static List<Integer> keptRows(long[] words) {
    List<Integer> kept = new ArrayList<>();
    for (int w = 0; w < words.length; w++) {
      for (long m = words[w]; m != 0; m &= m - 1) {
        kept.add((w << 6) + Long.numberOfTrailingZeros(m));
      }
    }
    return kept;
  }

  private static final DataType[] FILTER_TYPES = {DataTypes.IntegerType, DataTypes.StringType, D92};

  @Test
  void selectiveFiltersEqualSparks() {
    int saved = Selective.gatherEighths;
    try {
      for (int eighths : new int[] {0, 4, 8}) { // never, below half, always gathered
        Selective.gatherEighths = eighths;
        selectiveFilters(new Random(17));
        ansiErrorsOnlyWhereSparkEvaluates();
      }
    } finally {
      Selective.gatherEighths = saved;
    }
  }

  private void selectiveFilters(Random rnd) {
    int[] sizes = {0, 1, 63, 64, 65, 200, 1000};
    for (int round = 0; round < 600; round++) {
      int n = sizes[rnd.nextInt(sizes.length)];
      Object[][] rows = new Object[n][];
      List<FieldVector> open = new ArrayList<>();
      try {
        ColumnarBatch batch = filterInput(rnd, n, rows, open);
        Expression[] conjuncts = new Expression[1 + rnd.nextInt(4)];
        for (int c = 0; c < conjuncts.length; c++) {
          conjuncts[c] = predicate(rnd, 3);
        }
        ColumnarExpressions compiled = ColumnarExpressions.compileBound(conjuncts, FILTER_TYPES);
        List<Integer> want = expectedKept(conjuncts, rows);
        List<Integer> got = keptRows(compiled.select(compiled.open(batch)));
        String what = java.util.Arrays.stream(conjuncts).map(Expression::sql).toList() + " over " + n + " rows";
        assertEquals(want, got, what);
      } finally {
        open.forEach(FieldVector::close);
      }
    }
  }

  /**
   * An ANSI overflow in a conjunct (or a disjunct) Spark does not evaluate on a row is not raised, whether the
   * rows still needing it are gathered or not; on a row it does evaluate, it is Spark's error.
   */
  private void ansiErrorsOnlyWhereSparkEvaluates() {
    Expression plusOne = new GreaterThan(Add$.MODULE$.apply(C0, new Literal(Integer.MAX_VALUE, DataTypes.IntegerType),
        EvalMode$.MODULE$.ANSI()), new Literal(0, DataTypes.IntegerType));
    Expression small = new LessThan(C0, new Literal(1, DataTypes.IntegerType)); // c0 + MAX overflows for c0 >= 1
    Expression big = new GreaterThanOrEqual(C0, new Literal(1, DataTypes.IntegerType));
    for (int positives : new int[] {1, 3, 60, 64}) {
      int n = 64;
      IntVector c0 = new IntVector("c0", allocator);
      c0.allocateNew(n);
      Object[][] rows = new Object[n][];
      for (int i = 0; i < n; i++) {
        int v = i < positives ? 5 : -3 - i; // few or many rows on which c0 + MAX overflows
        c0.set(i, v);
        rows[i] = new Object[] {v};
      }
      c0.setValueCount(n);
      try (c0) {
        ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(c0)}, n);
        DataType[] types = {DataTypes.IntegerType};
        Expression[][] safe = {{small, plusOne}, {new And(small, plusOne)}, {new Or(big, plusOne)},
            {new Not(new And(small, new Not(plusOne)))}};
        for (Expression[] conjuncts : safe) {
          ColumnarExpressions compiled = ColumnarExpressions.compileBound(conjuncts, types);
          assertEquals(expectedKept(conjuncts, rows), keptRows(compiled.select(compiled.open(batch))),
              java.util.Arrays.stream(conjuncts).map(Expression::sql).toList() + ", " + positives);
        }
        Expression[] raising = {big, plusOne};
        ColumnarExpressions compiled = ColumnarExpressions.compileBound(raising, types);
        assertThrows(SparkArithmeticException.class, () -> compiled.select(compiled.open(batch)));
      }
    }
  }

  // ---- UnscaledValue and MakeDecimal (Spark's rewrite of sum/avg over small decimals) against Spark ----

  @Test
  void unscaledValueEqualsSparks() {
    Random rnd = new Random(31);
    for (DecimalType t : new DecimalType[] {new DecimalType(1, 0), new DecimalType(7, 2), new DecimalType(18, 4)}) {
      int n = 300;
      BigDecimal[] values = new BigDecimal[n];
      for (int i = 0; i < n; i++) {
        values[i] = randomDecimal(rnd, t);
      }
      Expression e = new UnscaledValue(new BoundReference(0, t, true));
      ColumnarExpressions compiled = ColumnarExpressions.compileBound(new Expression[] {e}, new DataType[] {t});
      try (DecimalVector in = decimals("d", t, values)) {
        ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(in)}, n);
        try (FieldVector out = compiled.evaluate(compiled.open(batch), 0, "e", true, "UTC", allocator)) {
          for (int i = 0; i < n; i++) {
            Object want = e.eval(new GenericInternalRow(new Object[] {
                values[i] == null ? null : Decimal.apply(values[i], t.precision(), t.scale())}));
            assertEquals(want, out.getObject(i), e.sql() + " row " + i + ": " + values[i]);
          }
        }
      }
    }
    assertEquals(null, ColumnarExpressions.compileBound(new Expression[] {
        new UnscaledValue(new BoundReference(0, new DecimalType(19, 0), true))}, new DataType[] {
            new DecimalType(19, 0)}), "a decimal over 18 digits is refused");
  }

  @Test
  void makeDecimalEqualsSparks() {
    Random rnd = new Random(37);
    int n = 400;
    for (int precision : new int[] {1, 5, 9, 17, 18, 19, 28, 38}) {
      int scale = Math.min(precision, rnd.nextInt(4));
      Long[] values = new Long[n];
      long pow = precision < 19 ? Int128.POW10_LONG[precision] : Long.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        values[i] = switch (rnd.nextInt(8)) {
          case 0 -> null;
          case 1 -> pow - 1;
          case 2 -> -(pow - 1);
          case 3 -> precision < 19 ? pow : Long.MIN_VALUE;
          case 4 -> precision < 19 ? -pow : Long.MAX_VALUE;
          default -> (rnd.nextLong() >> rnd.nextInt(64)) % (precision < 19 ? pow * (rnd.nextBoolean() ? 1 : 2) : pow);
        };
      }
      for (boolean nullOnOverflow : new boolean[] {true, false}) {
        Expression e = new MakeDecimal(new BoundReference(0, DataTypes.LongType, true), precision, scale,
            nullOnOverflow);
        Object[] expected = new Object[n];
        boolean sparkFails = false;
        for (int i = 0; i < n; i++) {
          try {
            expected[i] = e.eval(new GenericInternalRow(new Object[] {values[i]}));
          } catch (RuntimeException ex) {
            sparkFails = true;
          }
        }
        ColumnarExpressions compiled = ColumnarExpressions.compileBound(new Expression[] {e},
            new DataType[] {DataTypes.LongType});
        try (BigIntVector in = new BigIntVector("l", allocator)) {
          in.allocateNew(n);
          for (int i = 0; i < n; i++) {
            if (values[i] != null) {
              in.set(i, values[i]);
            }
          }
          in.setValueCount(n);
          ColumnarBatch batch = new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(in)}, n);
          String what = e + " nullOnOverflow " + nullOnOverflow;
          if (sparkFails) {
            assertThrows(RuntimeException.class,
                () -> compiled.evaluate(compiled.open(batch), 0, "e", true, "UTC", allocator).close(), what);
            continue;
          }
          try (FieldVector out = compiled.evaluate(compiled.open(batch), 0, "e", true, "UTC", allocator)) {
            for (int i = 0; i < n; i++) {
              Object want = expected[i] == null ? null : ((Decimal) expected[i]).toJavaBigDecimal();
              assertEquals(want, out.getObject(i), what + " row " + i + ": " + values[i]);
            }
          }
        }
      }
    }
  }
}
