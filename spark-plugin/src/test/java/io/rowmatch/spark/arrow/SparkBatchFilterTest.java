package io.rowmatch.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.Predicate;
import org.apache.spark.sql.execution.RowToColumnConverter;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.spark.expression.ColumnarExpressions;

/**
 * The filter fused with the copy into Arrow (ColumnarFilter over Spark's own batches): differential against
 * Spark's interpreted predicate on the same rows (as the vectors' own getters give them), over on-heap,
 * off-heap and dictionary-encoded vectors reused batch after batch, with conditions that keep every row, none
 * and some; every kept row must come out with every column's value as it was, and nothing may leak.
 */
class SparkBatchFilterTest extends AllocatorTest {
  /** The atomic columns of every type the scan can give (RandomSparkRows' c0..c16). */
  private static StructType atomic() {
    StructType all = RandomSparkRows.everyType(false);
    StructType s = new StructType();
    for (int i = 0; i <= 16; i++) {
      s = s.add(all.fields()[i]);
    }
    return s;
  }

  /** A value rendered exactly (raw bits for floats, hex for binary) for comparing rows. */
  private static String render(InternalRow row, StructType schema) {
    StringBuilder sb = new StringBuilder();
    for (int c = 0; c < schema.fields().length; c++) {
      DataType t = schema.fields()[c].dataType();
      if (row.isNullAt(c)) {
        sb.append("null");
      } else if (t.sameType(DataTypes.FloatType)) {
        sb.append(Integer.toHexString(Float.floatToRawIntBits(row.getFloat(c))));
      } else if (t.sameType(DataTypes.DoubleType)) {
        sb.append(Long.toHexString(Double.doubleToRawLongBits(row.getDouble(c))));
      } else if (t.sameType(DataTypes.BinaryType)) {
        sb.append(HexFormat.of().formatHex(row.getBinary(c)));
      } else {
        sb.append(row.get(c, t));
      }
      sb.append('|');
    }
    return sb.toString();
  }

  /**
   * Fills the reused vectors for batch k (returns its row count) and checks the fused filter against Spark's
   * predicate over batches 0..count.
   */
  private ColumnarExpressions assertFiltered(StructType schema, WritableColumnVector[] vectors, int batches,
      java.util.function.IntUnaryOperator fill, Function<Function<Integer, Expression>, Expression> condition) {
    return assertFilteredBy(schema, vectors, batches, fill, List.of(condition));
  }

  /** As {@link #assertFiltered}, the filter's conjuncts given one by one (as RowmatchFilter hands them over). */
  /** A new attribute per field of the schema. */
  private static List<Attribute> attributes(StructType schema) {
    List<Attribute> input = new ArrayList<>();
    for (StructField f : schema.fields()) {
      input.add(new AttributeReference(f.name(), f.dataType(), true, Metadata.empty(), NamedExpression.newExprId(),
          CollectionConverters.asScala(List.<String>of()).toSeq()));
    }
    return input;
  }

  private ColumnarExpressions assertFilteredBy(StructType schema, WritableColumnVector[] vectors, int batches,
      java.util.function.IntUnaryOperator fill, List<Function<Function<Integer, Expression>, Expression>> steps) {
    List<Attribute> input = attributes(schema);
    List<Expression> ours = new ArrayList<>();
    Expression bound = null;
    for (var step : steps) {
      ours.add(step.apply(input::get));
      Expression b = step.apply(c -> new BoundReference(c, schema.fields()[c].dataType(), true));
      bound = bound == null ? b : new And(bound, b);
    }
    org.apache.spark.sql.catalyst.expressions.InterpretedPredicate spark = Predicate.createInterpreted(bound);
    ColumnarBatch batch = new ColumnarBatch(vectors);
    List<String> expected = new ArrayList<>();
    for (int k = 0; k < batches; k++) {
      int n = fill.applyAsInt(k);
      batch.setNumRows(n);
      for (int i = 0; i < n; i++) {
        InternalRow row = batch.getRow(i).copy();
        if (spark.eval(row)) {
          expected.add(render(row, schema));
        }
      }
    }
    java.util.Iterator<ColumnarBatch> in = SparkBatches.reused(batch, batches, fill, false);
    ColumnarExpressions conjuncts = ColumnarExpressions.compile(
        scala.jdk.javaapi.CollectionConverters.asScala(ours).toSeq(),
        CollectionConverters.asScala(input).toSeq());
    List<String> actual = new ArrayList<>();
    try (ColumnarFilter filter = ColumnarFilter.overSpark(in, conjuncts, schema, allocator)) {
      while (filter.hasNext()) {
        ColumnarBatch b = filter.next();
        assertTrue(ColumnarToArrowBatches.isArrow(b), "the filter's output is Arrow");
        for (int r = 0; r < b.numRows(); r++) {
          actual.add(render(b.getRow(r), schema));
        }
      }
    }
    assertEquals(expected, actual, ours.stream().map(Expression::sql).toList().toString());
    return conjuncts;
  }

  /**
   * A projection over the fused filter's output reads a scan's column straight from Spark's vector: every column of
   * the kept rows as Spark gives it ({@code coalesce(c, c)} and {@code c IS NULL}), while the filter's output
   * columns stay unconverted (no copy into Arrow for a column only an expression reads).
   */
  private void assertProjectedAfterFilter(StructType schema, WritableColumnVector[] vectors, int batches,
      java.util.function.IntUnaryOperator fill, Function<Function<Integer, Expression>, Expression> condition) {
    List<Attribute> input = new ArrayList<>();
    for (StructField f : schema.fields()) {
      input.add(new AttributeReference(f.name(), f.dataType(), true, Metadata.empty(), NamedExpression.newExprId(),
          CollectionConverters.asScala(List.<String>of()).toSeq()));
    }
    int width = schema.fields().length;
    StructType outSchema = new StructType();
    List<Expression> projections = new ArrayList<>();
    String[] names = new String[2 * width];
    for (int c = 0; c < width; c++) {
      projections.add(new org.apache.spark.sql.catalyst.expressions.Coalesce(
          CollectionConverters.asScala(List.<Expression>of(input.get(c), input.get(c))).toSeq()));
      outSchema = outSchema.add("v" + c, schema.fields()[c].dataType());
      names[c] = "v" + c;
    }
    for (int c = 0; c < width; c++) {
      projections.add(new org.apache.spark.sql.catalyst.expressions.IsNull(input.get(c)));
      outSchema = outSchema.add("n" + c, DataTypes.BooleanType);
      names[width + c] = "n" + c;
    }
    Expression bound = condition.apply(c -> new BoundReference(c, schema.fields()[c].dataType(), true));
    org.apache.spark.sql.catalyst.expressions.InterpretedPredicate spark = Predicate.createInterpreted(bound);
    ColumnarBatch batch = new ColumnarBatch(vectors);
    List<String> expected = new ArrayList<>();
    for (int k = 0; k < batches; k++) {
      int n = fill.applyAsInt(k);
      batch.setNumRows(n);
      for (int i = 0; i < n; i++) {
        InternalRow row = batch.getRow(i).copy();
        if (spark.eval(row)) {
          Object[] values = new Object[2 * width];
          for (int c = 0; c < width; c++) {
            values[c] = row.isNullAt(c) ? null : row.get(c, schema.fields()[c].dataType());
            values[width + c] = row.isNullAt(c);
          }
          expected.add(render(new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(values), outSchema));
        }
      }
    }
    ColumnarExpressions conjuncts = ColumnarExpressions.compile(
        CollectionConverters.asScala(List.of(condition.apply(input::get))).toSeq(),
        CollectionConverters.asScala(input).toSeq());
    ColumnarExpressions projected = ColumnarExpressions.compile(CollectionConverters.asScala(projections).toSeq(),
        CollectionConverters.asScala(input).toSeq());
    List<String> actual = new ArrayList<>();
    int unconverted = 0;
    try (ColumnarFilter filter = ColumnarFilter.overSpark(SparkBatches.reused(batch, batches, fill, false), conjuncts,
        schema, allocator)) {
      ColumnarBatch[] last = new ColumnarBatch[1];
      java.util.Iterator<ColumnarBatch> seen = new java.util.Iterator<>() {
        @Override
        public boolean hasNext() {
          return filter.hasNext();
        }

        @Override
        public ColumnarBatch next() {
          last[0] = filter.next();
          return last[0];
        }
      };
      try (ColumnarProject project = ColumnarProject.over(seen, projected, names, "UTC", allocator)) {
        while (project.hasNext()) {
          ColumnarBatch b = project.next();
          for (int c = 0; c < width; c++) {
            if (last[0].column(c) instanceof ConvertOnReadColumn u) {
              assertTrue(!u.isConverted(), "column " + c + " was copied into Arrow for an expression to read it");
              unconverted++;
            }
          }
          for (int r = 0; r < b.numRows(); r++) {
            actual.add(render(b.getRow(r), outSchema));
          }
        }
      }
    }
    assertEquals(expected, actual, condition.apply(input::get).sql());
    assertTrue(batches == 0 || unconverted > 0, "the filter's output had scan columns not yet in Arrow");
  }

  private static Literal lit(Object v, DataType t) {
    return Literal.create(v, t);
  }

  /** Conditions that keep all, most, none, and some rows, over most column types. */
  private static List<Function<Function<Integer, Expression>, Expression>> conditions() {
    return List.of(
        c -> lit(true, DataTypes.BooleanType),
        c -> new IsNotNull(c.apply(1)), // most rows kept: copied whole, then gathered
        c -> new And(new IsNotNull(c.apply(1)), new IsNotNull(c.apply(11))),
        c -> new And(new GreaterThan(c.apply(3), lit(0, DataTypes.IntegerType)),
            new LessThan(c.apply(6), lit(0.5, DataTypes.DoubleType))),
        c -> new Or(new GreaterThanOrEqual(c.apply(7), lit(Decimal.apply(0L, 9, 2), DataTypes.createDecimalType(9, 2))),
            new LessThan(c.apply(10), lit(Decimal.apply(0L, 38, 10), DataTypes.createDecimalType(38, 10)))),
        c -> new GreaterThanOrEqual(c.apply(11), lit(UTF8String.fromString("c"), DataTypes.StringType)),
        c -> new And(new EqualTo(c.apply(0), lit(true, DataTypes.BooleanType)),
            new GreaterThan(c.apply(9), lit(Decimal.apply(0L, 19, 3), DataTypes.createDecimalType(19, 3)))),
        c -> new And(new GreaterThan(c.apply(4), lit(Long.MAX_VALUE, DataTypes.LongType)),
            new IsNotNull(c.apply(12))),
        c -> new Or(new LessThan(c.apply(5), lit(0.0f, DataTypes.FloatType)),
            new And(new GreaterThan(c.apply(13), lit(0, DataTypes.DateType)),
                new GreaterThan(c.apply(2), lit((short) 0, DataTypes.ShortType)))));
  }

  @Test
  void onHeapAndOffHeapBatchesOfEveryAtomicType() {
    StructType schema = atomic();
    for (boolean offHeap : new boolean[] {false, true}) {
      int size = 300;
      int[] sizes = {65, 0, 1, 300, 63, 64, 200};
      List<List<InternalRow>> rows = new ArrayList<>();
      for (int k = 0; k < sizes.length; k++) {
        rows.add(RandomSparkRows.rows(schema, sizes[k], 31L * k + (offHeap ? 7 : 0), false));
      }
      for (var condition : conditions()) {
        RowToColumnConverter converter = new RowToColumnConverter(schema);
        withVectors(schema, size, offHeap, vectors -> {
          assertFiltered(schema, vectors, sizes.length, k -> SparkBatches.fill(vectors, converter, rows.get(k)),
              condition);
          assertProjectedAfterFilter(schema, vectors, sizes.length,
              k -> SparkBatches.fill(vectors, converter, rows.get(k)), condition);
        });
      }
    }
  }

  /** A Parquet chunk's dictionary: numbers and strings of the salt. */
  private static SparkBatches.ParquetChunk chunk(int salt) {
    String[] words = {"", "AIR", "REG AIR", "DELIVER IN PERSON", "日本語" + salt, "x" + salt,
        "a value longer than eight bytes " + salt, "MAIL"};
    return new SparkBatches.ParquetChunk(7).ints(id -> id * 1000 - 3500 + salt).longs(id -> id * 700L - 2400 + salt)
        .doubles(id -> id == 0 ? -0.0 : id == 1 ? Double.NaN : id - 3.5 + salt).strings(id -> words[id]);
  }

  /** The columns fillChunk fills: four dictionary-encoded (int, decimal(15, 2), double, string), one plain long. */
  private static final StructType CHUNKED = new StructType().add("i", DataTypes.IntegerType)
      .add("dec", DataTypes.createDecimalType(15, 2)).add("d", DataTypes.DoubleType)
      .add("s", DataTypes.StringType).add("plain", DataTypes.LongType);

  /** Spark vectors of the schema, n rows, handed to body and closed after it. */
  private static void withVectors(StructType schema, int n, boolean offHeap,
      java.util.function.Consumer<WritableColumnVector[]> body) {
    WritableColumnVector[] vectors = SparkBatches.allocate(schema, n, offHeap);
    try {
      body.accept(vectors);
    } finally {
      for (WritableColumnVector v : vectors) {
        v.close();
      }
    }
  }

  /**
   * Batch k of the (i, dec, d, s, plain) schema: the first four columns dictionary-encoded with the chunk's
   * dictionary (a new wrapper each batch) and nulls over out-of-range ids, the last plain longs (with nulls when
   * {@code plainNulls}). Returns the row count n.
   */
  private static int fillChunk(WritableColumnVector[] vectors, SparkBatches.ParquetChunk chunk, int k, int n,
      boolean plainNulls) {
    for (int c = 0; c < 4; c++) {
      int col = c;
      SparkBatches.dictionaryEncoded(vectors[c], SparkBatches.wrapped(chunk), n, i -> (i * 5 + col + k) % 8,
          i -> (i + col) % 9 == 4);
    }
    WritableColumnVector plain = vectors[4];
    plain.reset();
    for (int i = 0; i < n; i++) {
      plain.putLong(i, i - 60L * k);
      if (plainNulls && (i + 4) % 9 == 4) {
        plain.putNull(i);
      }
    }
    return n;
  }

  @Test
  void dictionaryEncodedColumnsAcrossChunks() {
    // TPC-H's shape: dictionary-encoded int, decimal(15, 2) (unscaled longs), double and strings; chunk A for
    // batches 0 and 1 (a new wrapper each), chunk B for batch 2; nulls over out-of-range ids.
    StructType schema = CHUNKED;
    SparkBatches.ParquetChunk[] chunks = {chunk(0), chunk(0), chunk(11)};
    List<Function<Function<Integer, Expression>, Expression>> conditions = List.of(
        c -> new In(c.apply(3), CollectionConverters.asScala(List.<Expression>of(
            lit(UTF8String.fromString("AIR"), DataTypes.StringType),
            lit(UTF8String.fromString("REG AIR"), DataTypes.StringType))).toSeq()),
        c -> new And(new EqualTo(c.apply(3), lit(UTF8String.fromString("DELIVER IN PERSON"), DataTypes.StringType)),
            new GreaterThanOrEqual(c.apply(1), lit(Decimal.apply(100L, 15, 2), DataTypes.createDecimalType(15, 2)))),
        c -> new Or(new LessThan(c.apply(0), lit(0, DataTypes.IntegerType)),
            new GreaterThan(c.apply(2), lit(0.0, DataTypes.DoubleType))),
        c -> new GreaterThan(c.apply(4), lit(-1L, DataTypes.LongType)),
        c -> new IsNotNull(c.apply(3)));
    for (boolean offHeap : new boolean[] {false, true}) {
      for (var condition : conditions) {
        int n = 130;
        withVectors(schema, n, offHeap, vectors -> {
          java.util.function.IntUnaryOperator fill = k -> fillChunk(vectors, chunks[k], k, n, true);
          assertFiltered(schema, vectors, chunks.length, fill, condition);
          assertProjectedAfterFilter(schema, vectors, chunks.length, fill, condition);
        });
      }
    }
  }

  /**
   * Conjuncts over one dictionary-encoded column are decided once per dictionary entry (and once for a null) and
   * must keep exactly Spark's rows: nulls under NOT IN, IS NULL and null-safe equality, NaN and -0.0 against zero,
   * decimals, string prefixes; a conjunct over two columns, or one that may raise an error, stays row by row.
   */
  @Test
  void conjunctsDecidedPerDictionaryEntry() {
    StructType schema = CHUNKED;
    SparkBatches.ParquetChunk[] chunks = {chunk(0), chunk(0), chunk(11)};
    Expression nullInt = lit(null, DataTypes.IntegerType);
    List<Function<Function<Integer, Expression>, Expression>> perEntry = List.of(
        c -> new And(new GreaterThanOrEqual(c.apply(0), lit(-1500, DataTypes.IntegerType)),
            new LessThan(c.apply(0), lit(2500, DataTypes.IntegerType))),
        c -> new org.apache.spark.sql.catalyst.expressions.Not(new In(c.apply(0),
            CollectionConverters.asScala(List.<Expression>of(lit(-3500, DataTypes.IntegerType), nullInt)).toSeq())),
        c -> new org.apache.spark.sql.catalyst.expressions.Not(new In(c.apply(0),
            CollectionConverters.asScala(List.<Expression>of(lit(-3500, DataTypes.IntegerType))).toSeq())),
        c -> new org.apache.spark.sql.catalyst.expressions.IsNull(c.apply(1)),
        c -> new org.apache.spark.sql.catalyst.expressions.EqualNullSafe(c.apply(0), nullInt),
        c -> new Or(new LessThan(c.apply(0), lit(0, DataTypes.IntegerType)),
            new org.apache.spark.sql.catalyst.expressions.IsNull(c.apply(0))),
        c -> new GreaterThan(c.apply(2), lit(0.0, DataTypes.DoubleType)),
        c -> new EqualTo(c.apply(2), lit(0.0, DataTypes.DoubleType)),
        c -> new EqualTo(c.apply(2), lit(Double.NaN, DataTypes.DoubleType)),
        c -> new GreaterThanOrEqual(c.apply(1), lit(Decimal.apply(100L, 15, 2), DataTypes.createDecimalType(15, 2))),
        c -> new org.apache.spark.sql.catalyst.expressions.StartsWith(c.apply(3),
            lit(UTF8String.fromString("a value"), DataTypes.StringType)),
        c -> new org.apache.spark.sql.catalyst.expressions.Contains(c.apply(3),
            lit(UTF8String.fromString("AIR"), DataTypes.StringType)),
        c -> new EqualTo(c.apply(3), lit(UTF8String.fromString(""), DataTypes.StringType)),
        // error-free value functions of the column: substring, length, COALESCE, CASE
        c -> new EqualTo(new org.apache.spark.sql.catalyst.expressions.Substring(c.apply(3),
            lit(3, DataTypes.IntegerType), lit(4, DataTypes.IntegerType)),
            lit(UTF8String.fromString("alue"), DataTypes.StringType)),
        c -> new GreaterThan(new org.apache.spark.sql.catalyst.expressions.Length(c.apply(3)),
            lit(7, DataTypes.IntegerType)),
        c -> new EqualTo(new org.apache.spark.sql.catalyst.expressions.Coalesce(
            CollectionConverters.asScala(List.<Expression>of(c.apply(0), lit(-1, DataTypes.IntegerType))).toSeq()),
            lit(-1, DataTypes.IntegerType)));
    List<Function<Function<Integer, Expression>, Expression>> rowByRow = List.of(
        c -> new Or(new LessThan(c.apply(0), lit(0, DataTypes.IntegerType)),
            new GreaterThan(c.apply(2), lit(0.0, DataTypes.DoubleType))),
        c -> new GreaterThan(new org.apache.spark.sql.catalyst.expressions.Add(c.apply(0),
            lit(1, DataTypes.IntegerType)),
            lit(0, DataTypes.IntegerType)),
        c -> new GreaterThan(c.apply(4), lit(-1L, DataTypes.LongType)));
    int n = 130;
    for (boolean offHeap : new boolean[] {false, true}) {
      for (int list = 0; list < 2; list++) {
        for (var condition : list == 0 ? perEntry : rowByRow) {
          // Off-heap vectors are read through their getters; on-heap ones by their arrays and dictionary ids.
          long expected = list == 0 && !offHeap ? (long) n * chunks.length : 0;
          withVectors(schema, n, offHeap, vectors -> {
            java.util.function.IntUnaryOperator fill = k -> fillChunk(vectors, chunks[k], k, n, false);
            ColumnarExpressions used = assertFiltered(schema, vectors, chunks.length, fill, condition);
            assertEquals(expected, used.rowsDecidedByDictionary(), "rows decided by dictionary entry");
          });
        }
      }
    }
  }

  /**
   * Dictionary conjuncts after a row-by-row one that keeps one row in nine, none or all (Spark evaluates the later
   * ones only where it held; deciding them per entry must keep exactly its rows), over columns with nulls, at batch
   * sizes around a word's 64 rows.
   */
  @Test
  void dictionaryConjunctsAfterASelectiveOne() {
    StructType schema = CHUNKED;
    SparkBatches.ParquetChunk[] chunks = {chunk(0), chunk(0), chunk(11)};
    List<Function<Function<Integer, Expression>, Expression>> later = List.of(
        c -> new GreaterThanOrEqual(c.apply(1), lit(Decimal.apply(100L, 15, 2), DataTypes.createDecimalType(15, 2))),
        c -> new org.apache.spark.sql.catalyst.expressions.Not(new EqualTo(c.apply(2),
            lit(0.0, DataTypes.DoubleType))),
        c -> new org.apache.spark.sql.catalyst.expressions.Not(new org.apache.spark.sql.catalyst.expressions.StartsWith(
            c.apply(3), lit(UTF8String.fromString("a value"), DataTypes.StringType))));
    List<Function<Function<Integer, Expression>, Expression>> first = List.of(
        c -> new EqualTo(new org.apache.spark.sql.catalyst.expressions.Remainder(c.apply(4),
            lit(9L, DataTypes.LongType)), lit(0L, DataTypes.LongType)),
        c -> new LessThan(c.apply(4), lit(Long.MIN_VALUE, DataTypes.LongType)),
        c -> new GreaterThan(c.apply(4), lit(Long.MIN_VALUE, DataTypes.LongType)),
        c -> new LessThan(c.apply(0), lit(-3000, DataTypes.IntegerType)));
    for (int n : new int[] {1, 63, 64, 65, 130}) {
      for (var selective : first) {
        List<Function<Function<Integer, Expression>, Expression>> steps = new ArrayList<>();
        steps.add(selective);
        steps.addAll(later);
        // (no row passes the second first conjunct: the later ones are not evaluated at all, as in Spark)
        boolean laterRan = selective != first.get(1) && n >= 64;
        withVectors(schema, n, false, vectors -> {
          java.util.function.IntUnaryOperator fill = k -> fillChunk(vectors, chunks[k], k, n, false);
          ColumnarExpressions used = assertFilteredBy(schema, vectors, chunks.length, fill, steps);
          assertTrue(!laterRan || used.rowsDecidedByDictionary() > 0, "the later conjuncts were decided per entry");
        });
      }
    }
  }

  /**
   * TPC-H q6's shape: several conjuncts over each of a few dictionary-encoded columns, interleaved, with a row-by-row
   * conjunct that raises no error among them. The conjuncts over one column are decided together, in one pass, and
   * keep exactly Spark's rows.
   */
  @Test
  void conjunctsOverOneColumnDecidedTogether() {
    StructType schema = CHUNKED;
    SparkBatches.ParquetChunk[] chunks = {chunk(0), chunk(0), chunk(11)};
    List<Function<Function<Integer, Expression>, Expression>> steps = List.of(
        c -> new IsNotNull(c.apply(0)),
        c -> new IsNotNull(c.apply(1)),
        c -> new GreaterThanOrEqual(c.apply(0), lit(-2500, DataTypes.IntegerType)),
        c -> new GreaterThan(c.apply(4), lit(-100L, DataTypes.LongType)),
        c -> new LessThan(c.apply(0), lit(2500, DataTypes.IntegerType)),
        c -> new org.apache.spark.sql.catalyst.expressions.Not(new EqualTo(c.apply(2),
            lit(Double.NaN, DataTypes.DoubleType))),
        c -> new GreaterThanOrEqual(c.apply(1), lit(Decimal.apply(-1000L, 15, 2), DataTypes.createDecimalType(15, 2))),
        c -> new LessThanOrEqual(c.apply(1), lit(Decimal.apply(200000L, 15, 2), DataTypes.createDecimalType(15, 2))),
        c -> new Or(new LessThan(c.apply(2), lit(2.0, DataTypes.DoubleType)),
            new org.apache.spark.sql.catalyst.expressions.IsNull(c.apply(2))));
    for (int n : new int[] {1, 63, 64, 65, 130}) {
      withVectors(schema, n, false, vectors -> {
        java.util.function.IntUnaryOperator fill = k -> fillChunk(vectors, chunks[k], k, n, false);
        ColumnarExpressions used = assertFilteredBy(schema, vectors, chunks.length, fill, steps);
        // One group per column read (i, dec, d, and the plain one, which is not dictionary-encoded in these batches).
        assertEquals(4, used.dictionaryGroups(), "one group per column");
        // The eight conjuncts over i, dec and d, on every row of each batch once a chunk's rows outnumber its 7 entries.
        assertEquals(n >= 7 ? 8L * n * chunks.length : 0, used.rowsDecidedByDictionary(), "decided per entry");
      });
    }
  }

  /**
   * A conjunct that may raise an error ends the groups before it: a later conjunct over the same column is not
   * decided before it, which would spare rows Spark evaluates it on. Here Spark fails (ANSI: the remainder by the
   * plain column's zero, on a row where the first conjunct holds and the third does not), and so must the filter.
   */
  @Test
  void conjunctThatMayFailEndsTheGroupsBeforeIt() {
    StructType schema = CHUNKED;
    SparkBatches.ParquetChunk[] chunks = {chunk(0), chunk(0), chunk(11)};
    List<Function<Function<Integer, Expression>, Expression>> steps = List.of(
        c -> new GreaterThan(c.apply(0), lit(-3000, DataTypes.IntegerType)),
        c -> new GreaterThanOrEqual(org.apache.spark.sql.catalyst.expressions.Remainder$.MODULE$.apply(
            lit(7L, DataTypes.LongType), c.apply(4), org.apache.spark.sql.catalyst.expressions.EvalMode$.MODULE$.ANSI()),
            lit(0L, DataTypes.LongType)),
        c -> new LessThan(c.apply(0), lit(-2000, DataTypes.IntegerType)));
    int n = 130;
    withVectors(schema, n, false, vectors -> {
      java.util.function.IntUnaryOperator fill = k -> fillChunk(vectors, chunks[k], k, n, false);
      RuntimeException spark = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
          () -> assertFilteredBy(schema, vectors, chunks.length, fill, steps));
      assertTrue(spark.getMessage().contains("REMAINDER_BY_ZERO"), spark.getMessage());
      List<Attribute> input = attributes(schema);
      ColumnarExpressions conjuncts = ColumnarExpressions.compile(
          CollectionConverters.asScala(steps.stream().map(s -> s.apply(input::get)).toList()).toSeq(),
          CollectionConverters.asScala(input).toSeq());
      java.util.Iterator<ColumnarBatch> in = SparkBatches.reused(new ColumnarBatch(vectors), chunks.length, fill,
          false);
      RuntimeException ours = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> {
        try (ColumnarFilter filter = ColumnarFilter.overSpark(in, conjuncts, schema, allocator)) {
          while (filter.hasNext()) {
            filter.next();
          }
        }
      });
      assertTrue(ours.getMessage().contains("REMAINDER_BY_ZERO"), ours.getMessage());
      assertEquals(2, conjuncts.dictionaryGroups(), "the third conjunct is not decided with the first");
    });
  }

  /**
   * A dictionary with more entries than a batch has rows is decided per entry only once its chunk's rows outnumber
   * its entries; the batches before are evaluated row by row, with the same answers.
   */
  @Test
  void largeDictionaryDecidedOnceItsRowsOutnumberItsEntries() {
    StructType schema = new StructType().add("i", DataTypes.IntegerType);
    SparkBatches.ParquetChunk big = new SparkBatches.ParquetChunk(299).ints(id -> id * 7 - 1000);
    int n = 130;
    WritableColumnVector[] vectors = SparkBatches.allocate(schema, n, false);
    try {
      java.util.function.IntUnaryOperator fill = k -> {
        SparkBatches.dictionaryEncoded(vectors[0], SparkBatches.wrapped(big), n, i -> (i * 37 + k * 11) % 300,
            i -> i % 17 == 3);
        return n;
      };
      ColumnarExpressions used = assertFiltered(schema, vectors, 4, fill,
          c -> new LessThanOrEqual(c.apply(0), lit(0, DataTypes.IntegerType)));
      // 300 entries: batches 0 and 1 (260 rows) row by row, 2 and 3 by entry.
      assertEquals(2L * n, used.rowsDecidedByDictionary());
    } finally {
      vectors[0].close();
    }
  }
}
