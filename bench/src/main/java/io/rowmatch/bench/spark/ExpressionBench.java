package io.rowmatch.bench.spark;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.GeneratePredicate;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.expression.ColumnarExpressions;

/**
 * TPC-H q1's, q6's and q19's (its lineitem side) filter and projection over one batch of lineitem columns
 * (decimal(15,2) money, dates, q19's ship mode and instruction strings):
 * Rowmatch's columnar kernels over Arrow (select, gather the kept rows' inputs, evaluate the projection) against
 * Spark's generated code (GeneratePredicate + UnsafeProjection, as whole-stage codegen runs them) over the same
 * rows as UnsafeRows. Expressions are Spark's own, from the optimized plan of the query over the same schema.
 *
 * <p>Run: bench/jmh.sh ExpressionBench
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ExpressionBench {
  @Param({"q1", "q6", "q19"})
  public String query;

  private static final int ROWS = 8192;
  private static final String[] COLUMNS = {"l_quantity", "l_extendedprice", "l_discount", "l_tax", "l_shipdate",
      "l_shipinstruct", "l_shipmode"};
  private static final String[] SHIPMODES = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
  private static final String[] INSTRUCTIONS = {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"};

  private BufferAllocator allocator;
  private final List<FieldVector> vectors = new ArrayList<>();
  private ColumnarBatch batch;
  private UnsafeRow[] rows;
  private ColumnarExpressions conjuncts;
  private ColumnarExpressions projections;
  private BasePredicate predicate;
  private UnsafeProjection projection;

  @Setup(Level.Trial)
  public void setUp() {
    SparkSession spark = SparkSession.builder().master("local[1]").appName("expression-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.optimizer.excludedRules",
            "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation,"
                + "org.apache.spark.sql.catalyst.optimizer.PropagateEmptyRelation")
        .getOrCreate();
    StructType schema = new StructType()
        .add("l_quantity", DataTypes.createDecimalType(15, 2))
        .add("l_extendedprice", DataTypes.createDecimalType(15, 2))
        .add("l_discount", DataTypes.createDecimalType(15, 2))
        .add("l_tax", DataTypes.createDecimalType(15, 2))
        .add("l_shipdate", DataTypes.DateType);
    boolean strings = query.equals("q19"); // q1 and q6 read no string column
    if (strings) {
      schema = schema.add("l_shipinstruct", DataTypes.StringType).add("l_shipmode", DataTypes.StringType);
    }
    int width = schema.size();
    Dataset<Row> table = spark.createDataFrame(List.of(RowFactory.create(new Object[width])), schema);
    // q19: the part of its condition Spark pushes into the lineitem scan's filter
    Dataset<Row> q = query.equals("q19")
        ? table.where("l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON'"
                + " AND ((l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND l_quantity <= 20)"
                + " OR (l_quantity >= 20 AND l_quantity <= 30))")
            .selectExpr("l_extendedprice * (1 - l_discount) AS revenue")
        : query.equals("q1")
        ? table.where("l_shipdate <= date '1998-12-01' - interval '90' day")
            .selectExpr("l_quantity", "l_extendedprice", "l_extendedprice * (1 - l_discount) AS disc_price",
                "l_extendedprice * (1 - l_discount) * (1 + l_tax) AS charge")
        : table.where("l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year"
                + " AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24")
            .selectExpr("l_extendedprice * l_discount AS revenue");
    LogicalPlan plan = q.queryExecution().optimizedPlan();
    Project project = (Project) plan;
    Filter filter = (Filter) project.child();
    List<Attribute> inputList = CollectionConverters.asJava(filter.child().output());
    scala.collection.immutable.Seq<Attribute> input = CollectionConverters.asScala(inputList).toSeq();
    List<Expression> steps = CollectionConverters.asJava(
        io.rowmatch.spark.arrow.RowmatchFilterExec.steps(filter.condition(), input));
    conjuncts = ColumnarExpressions.compile(CollectionConverters.asScala(steps).toSeq(), input);
    List<NamedExpression> list = CollectionConverters.asJava(project.projectList());
    List<Expression> listed = new ArrayList<>();
    for (NamedExpression e : list) {
      listed.add((Expression) e); // a Scala trait over a class: Java needs the cast
    }
    projections = ColumnarExpressions.compile(CollectionConverters.asScala(listed).toSeq(), input);
    predicate = (BasePredicate) GeneratePredicate.generate(io.rowmatch.spark.join.KeyBinding.bind(filter.condition(), inputList));
    List<Expression> bound = new ArrayList<>();
    for (NamedExpression e : list) {
      bound.add(io.rowmatch.spark.join.KeyBinding.bind((Expression) e, inputList));
    }
    projection = UnsafeProjection.create(CollectionConverters.asScala(bound).toSeq());

    allocator = new RootAllocator();
    Random rnd = new Random(1);
    DecimalVector[] money = new DecimalVector[4];
    for (int c = 0; c < 4; c++) {
      money[c] = new DecimalVector(COLUMNS[c], allocator, 15, 2);
      money[c].allocateNew(ROWS);
      vectors.add(money[c]);
    }
    DateDayVector ship = new DateDayVector("l_shipdate", allocator);
    ship.allocateNew(ROWS);
    vectors.add(ship);
    VarCharVector instructions = new VarCharVector("l_shipinstruct", allocator);
    VarCharVector modes = new VarCharVector("l_shipmode", allocator);
    if (strings) {
      instructions.allocateNew(ROWS);
      modes.allocateNew(ROWS);
      vectors.add(instructions);
      vectors.add(modes);
    } else {
      instructions.close();
      modes.close();
    }
    UnsafeProjection toUnsafe = UnsafeProjection.create(schema);
    rows = new UnsafeRow[ROWS];
    for (int i = 0; i < ROWS; i++) {
      long[] cents = {100 * (1 + rnd.nextInt(50)), 90000 + rnd.nextInt(10_000_000), rnd.nextInt(11), rnd.nextInt(9)};
      Object[] values = new Object[width];
      for (int c = 0; c < 4; c++) {
        money[c].setSafe(i, BigDecimal.valueOf(cents[c], 2));
        values[c] = Decimal.apply(cents[c], 15, 2);
      }
      int day = 8035 + rnd.nextInt(2526); // 1992-01-02 .. 1998-12-01, as dbgen
      ship.set(i, day);
      values[4] = day;
      if (strings) {
        String instruct = INSTRUCTIONS[rnd.nextInt(INSTRUCTIONS.length)];
        String mode = SHIPMODES[rnd.nextInt(SHIPMODES.length)];
        instructions.setSafe(i, instruct.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        modes.setSafe(i, mode.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        values[5] = org.apache.spark.unsafe.types.UTF8String.fromString(instruct);
        values[6] = org.apache.spark.unsafe.types.UTF8String.fromString(mode);
      }
      rows[i] = toUnsafe.apply(new GenericInternalRow(values)).copy();
    }
    for (FieldVector v : vectors) {
      v.setValueCount(ROWS);
    }
    ColumnVector[] columns = new ColumnVector[vectors.size()];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = new ArrowColumnVector(vectors.get(c));
    }
    batch = new ColumnarBatch(columns, ROWS);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    for (FieldVector v : vectors) {
      v.close();
    }
    allocator.close();
  }

  /** Select, gather the kept rows' columns, evaluate every projection into Arrow vectors. */
  @Benchmark
  public void rowmatchColumnar(Blackhole bh) {
    long[] keep = conjuncts.select(conjuncts.open(batch));
    int count = 0;
    for (long w : keep) {
      count += Long.bitCount(w);
    }
    int[] rowIds = new int[count];
    int k = 0;
    for (int w = 0; w < keep.length; w++) {
      for (long m = keep[w]; m != 0; m &= m - 1) {
        rowIds[k++] = (w << 6) + Long.numberOfTrailingZeros(m);
      }
    }
    FieldVector[] kept = new FieldVector[vectors.size()];
    ColumnVector[] columns = new ColumnVector[kept.length];
    io.rowmatch.core.arrow.ArrowCopy.Scratch scratch = new io.rowmatch.core.arrow.ArrowCopy.Scratch();
    for (int c = 0; c < kept.length; c++) {
      kept[c] = (FieldVector) vectors.get(c).getField().createVector(allocator);
      io.rowmatch.core.arrow.ArrowCopy.gather(vectors.get(c), rowIds, count, kept[c], scratch);
      columns[c] = new ArrowColumnVector(kept[c]);
    }
    ColumnarBatch filtered = new ColumnarBatch(columns, count);
    Object in = projections.open(filtered);
    for (int i = 0; i < projections.size(); i++) {
      if (projections.passThrough(i) < 0) {
        try (FieldVector out = projections.evaluate(in, i, "e" + i, true, "UTC", allocator)) {
          bh.consume(out.getValueCount());
        }
      }
    }
    for (FieldVector v : kept) {
      v.close();
    }
  }

  /** Spark's generated predicate and projection, row by row, as a whole-stage codegen Filter + Project runs. */
  @Benchmark
  public void sparkGenerated(Blackhole bh) {
    int kept = 0;
    for (UnsafeRow r : rows) {
      if (predicate.eval(r)) {
        InternalRow out = projection.apply(r);
        bh.consume(out);
        kept++;
      }
    }
    bh.consume(kept);
  }
}
