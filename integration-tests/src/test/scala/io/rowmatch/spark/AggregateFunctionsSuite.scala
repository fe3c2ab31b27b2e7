package io.rowmatch.spark

import java.math.BigDecimal
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row}

import io.rowmatch.spark.aggregate.RowmatchHashAggregateExec

/**
 * last(), min/max over string, binary, boolean and decimal, and the memory limit over heap state, against
 * vanilla Spark: nulls, empty input, one group, all-distinct groups, and partial/final stages split
 * between Rowmatch and vanilla Spark across an exchange in both orders.
 */
class AggregateFunctionsSuite extends RowmatchQueryTest {

  private lazy val schema = StructType(Seq(
    StructField("k", IntegerType), StructField("s", StringType), StructField("bin", BinaryType),
    StructField("z", BooleanType), StructField("d10", DecimalType(10, 2)), StructField("d18", DecimalType(18, 0)),
    StructField("d30", DecimalType(30, 5)), StructField("d38", DecimalType(38, 0)), StructField("l", LongType),
    StructField("dbl", DoubleType)))

  private val strings = Seq("", "a", "ab", "b", "ä", "ünï", "日本", "a\u0000", "\uD83D\uDE00", "Z", "é", "zz")
  private val bytes: Seq[Array[Byte]] = Seq(Array(), Array(0), Array(0, 0), Array(1), Array(0x7f), Array(-128),
    Array(-1), Array(-1, 0), Array(5, -1, 3)).map(_.map(_.toByte))

  /** 600 rows, 20 keys; every column null now and then; key 19 has only nulls outside k. */
  private lazy val rows: Seq[Row] = {
    val rnd = new scala.util.Random(17)
    def maybe[T](k: Int)(v: => T): Any = if (k == 19 || rnd.nextInt(6) == 0) null else v
    def dec(digits: Int, scale: Int): BigDecimal = {
      val unscaled = (BigInt(digits * 4, rnd) % BigInt(10).pow(digits)) * (if (rnd.nextBoolean()) 1 else -1)
      new BigDecimal(unscaled.bigInteger, scale)
    }
    (0 until 600).map { _ =>
      val k = rnd.nextInt(20)
      Row(k, maybe(k)(strings(rnd.nextInt(strings.size))), maybe(k)(bytes(rnd.nextInt(bytes.size))),
        maybe(k)(rnd.nextBoolean()), maybe(k)(dec(10, 2)), maybe(k)(dec(18, 0)), maybe(k)(dec(30, 5)),
        maybe(k)(if (rnd.nextInt(10) == 0) new BigDecimal("9" * 38).negate() else dec(38, 0)),
        maybe(k)(rnd.nextLong()), maybe(k)(Seq(0.0, -0.0, Double.NaN, 1.5, -3.0)(rnd.nextInt(5))))
    }
  }

  private def data: DataFrame = spark.createDataFrame(rows.asJava, schema).repartition(3)

  private val minMaxColumns = Seq("s", "bin", "z", "d10", "d18", "d30", "d38")

  private def minMaxAll: Seq[org.apache.spark.sql.Column] = minMaxColumns.flatMap(c => Seq(min(c), max(c)))

  test("min and max over string, binary, boolean and decimal of every precision") {
    val out = checkAnswerAndOperator(data.groupBy("k").agg(minMaxAll.head, minMaxAll.tail: _*), exactOperators = Some(2))
    assert(out.size == 20)
    assert(out.exists(r => r.getInt(0) == 19 && (1 until r.length).forall(r.isNullAt)), out)
    // global: one group over all rows; grouped by a string key
    checkAnswerAndOperator(data.agg(minMaxAll.head, minMaxAll.tail: _*), exactOperators = Some(2))
    checkAnswerAndOperator(data.groupBy("s").agg(min("bin"), max("d38"), min("z")), exactOperators = Some(2))
  }

  test("min/max: byte order is unsigned (0xff above 0x7f, 'é' above 'z'), a prefix comes first") {
    val out = checkAnswerAndOperator(data.agg(max("s"), min("s"), max("bin"), min("bin")), exactOperators = Some(2))
    assert(RowComparison.valueEquals(out.head,
      Row("\uD83D\uDE00", "", Array(-1, 0).map(_.toByte), Array[Byte]()), 0.0), out)
  }

  test("min/max: empty input, one group, all-distinct groups") {
    withConf("spark.sql.adaptive.optimizer.excludedRules" ->
        "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation") {
      // A filter nothing passes, evaluated at run time (a local relation would be folded away).
      val empty = spark.range(0, 50, 1, 3).filter("id < 0").selectExpr("cast(id as int) k",
        "cast(id as string) s", "cast(cast(id as string) as binary) bin", "id % 2 = 0 as z", "cast(id as decimal(30, 5)) d30",
        "cast(id as decimal(38, 0)) d38")
      assert(checkAnswerAndOperator(empty.groupBy("k").agg(min("s"), max("d38")), minOperators = 1).isEmpty)
      val global = checkAnswerAndOperator(empty.agg(min("s"), max("bin"), min("z"), max("d30"), last("s")),
        minOperators = 1)
      assert(global == Seq(Row(null, null, null, null, null)), global)
    }
    val one = data.withColumn("k", lit(7))
    checkAnswerAndOperator(one.groupBy("k").agg(minMaxAll.head, minMaxAll.tail: _*), minOperators = 1)
    val distinct = spark.range(0, 2000, 1, 3).selectExpr("id", "cast(id as string) s",
      "cast(id * 7 as decimal(30, 2)) w", "cast(cast(id as string) as binary) b", "id % 2 = 0 as z")
    val all = checkAnswerAndOperator(distinct.groupBy("id").agg(min("s"), max("w"), max("b"), min("z")),
      exactOperators = Some(2))
    assert(all.size == 2000)
  }

  test("last and last(ignoreNulls) against a reference over one ordered partition") {
    // last() depends on row order; over one partition in input order it is defined.
    val cols = Seq("s", "bin", "d38", "l", "dbl")
    val df = spark.createDataFrame(rows.asJava, schema).coalesce(1).groupBy("k")
      .agg(last("s"), cols.map(c => last(c, ignoreNulls = true)) ++ Seq(last("dbl"), last("d10")): _*)
    val actual = withConf("spark.rowmatch.enabled" -> "true") {
      val r = df.collect().toSeq
      assert(rowmatchAggregates(df) == 2, df.queryExecution.executedPlan.treeString)
      r
    }
    val index = schema.fieldNames.zipWithIndex.toMap
    val expected = rows.groupBy(_.getInt(0)).map { case (k, rs) =>
      Row((Seq[Any](k, rs.last.get(index("s"))) ++
        cols.map(c => rs.map(_.get(index(c))).filter(_ != null).lastOption.orNull) ++
        Seq(rs.last.get(index("dbl")), rs.last.get(index("d10")))): _*)
    }.toSeq
    RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 0.0, context = "")
  }

  /** Values that depend only on k (v) with nulls scattered (vn): last is defined whatever the order. */
  private def keyed: DataFrame = data.selectExpr("k", "concat('v', k) as v",
    "if(l is null, null, concat('v', k)) as vn", "if(l is null, null, cast(k * 3 as decimal(38, 0))) as dn",
    "if(l % 2 = 0, null, k % 2 = 0) as zn", "s", "d38",
    "if(l is null, null, named_struct('k', k, 's', concat('v', k), 'n', cast(null as int))) as svn",
    "if(l is null, null, array(k, null, k)) as avn")

  test("last over several partitions where the answer does not depend on order, with and without ignoreNulls") {
    val out = checkAnswerAndOperator(keyed.groupBy("k").agg(last("v"), last("vn", ignoreNulls = true),
      last("dn", ignoreNulls = true), last("zn", ignoreNulls = true), count("*")), exactOperators = Some(2))
    // key 19 has only nulls: last(ignoreNulls) is null, last(v) is set
    assert(out.exists(r => r.getInt(0) == 19 && r.getString(1) == "v19" && r.isNullAt(2)), out)
    checkAnswerAndOperator(keyed.agg(expr("last(if(vn is null, null, 'x'), true)"), last(lit(5))),
      exactOperators = Some(2))
    // nested values (struct and array, with null fields and elements) are copied whole
    checkAnswerAndOperator(keyed.groupBy("k").agg(last("svn", ignoreNulls = true), last("avn", ignoreNulls = true),
      first("svn", ignoreNulls = true)), exactOperators = Some(2))
    // a computed input: Spark's Last evaluates it on every row, so it runs below the Rowmatch aggregate
    checkAnswerAndOperator(keyed.groupBy("k").agg(last(concat(col("v"), lit("!")))), exactOperators = Some(2))
  }

  test("last and the new min/max: a vanilla partial stage feeds a Rowmatch final stage") {
    // first() FILTER keeps the partial vanilla (only it applies the filter); the final is Rowmatch.
    val filtered = expr("first(k) FILTER (WHERE k > 3)")
    val out = checkAnswerAndOperator(keyed.groupBy("k").agg(last("v"), last("vn", ignoreNulls = true),
      last("dn", ignoreNulls = true), min("s"), max("s"), min("d38"), max("zn"), filtered), exactOperators = Some(1))
    assert(out.size == 20)
    val withBinary = checkAnswerAndOperator(data.groupBy("k").agg(minMaxAll.head, minMaxAll.tail :+ filtered: _*),
      exactOperators = Some(1))
    assert(withBinary.size == 20)
  }

  test("last and the new min/max: a Rowmatch partial stage feeds a vanilla final stage") {
    // The final's output is an interval, which we do not produce, so only the partial is Rowmatch.
    val interval = expr("make_dt_interval(0, 0, 0, count(*))").as("iv")
    checkAnswerAndOperator(keyed.groupBy("k").agg(interval, last("v"), last("vn", ignoreNulls = true),
      last("dn", ignoreNulls = true), min("s"), max("d38"), max("zn")), exactOperators = Some(1))
    checkAnswerAndOperator(data.groupBy("k").agg(interval, minMaxAll: _*), exactOperators = Some(1))
  }

  test("min/max over a string with a non-binary collation stays vanilla with its reason") {
    val df = withConf("spark.rowmatch.enabled" -> "true") {
      val d = data.select(col("k"), col("s").cast("string collate UNICODE_CI").as("ci")).groupBy("k").agg(max("ci"))
      d.collect()
      d
    }
    assert(fallbackReasons(df).exists(r => r.contains("max over string") && r.contains("UNICODE_CI")),
      fallbackReasons(df))
  }

  test("aggregate state on the Java heap counts against spark.rowmatch.memory.limit: the aggregation spills") {
    // min and max over 2 KB strings in 2000 groups per task: the key table and the input batches fit in
    // 4 MiB, the per-group minimums and maximums (8 MB on the heap) do not, so the aggregation spills its
    // state instead of failing.
    val query = () => spark.range(0, 4000, 1, 2).selectExpr("id", "repeat(cast(id % 10 as string), 2000) s")
      .groupBy("id").agg(min("s"), max("s"))
    var df: DataFrame = null
    withConf("spark.rowmatch.memory.limit" -> "4m") {
      checkAnswerAndOperator({ df = query(); df }, exactOperators = Some(2))
    }
    val spills = executedNodes(df).collect { case a: RowmatchHashAggregateExec => a.metrics("numSpills").value }
    assert(spills.sum > 0, planText(df))
    checkAnswerAndOperator(query(), exactOperators = Some(2))
  }

  /** The four order-2 statistics over doubles with NaN and -0.0 (dbl), longs (l) and decimals (d10). */
  private def variances: Seq[org.apache.spark.sql.Column] = Seq("dbl", "l", "d10").flatMap(c =>
    Seq(stddev_samp(c), stddev_pop(c), var_samp(c), var_pop(c), stddev(c), variance(c)))

  test("stddev and variance, sample and population: Spark's buffers and results, to the last bit") {
    // Within a partition both engines fold rows in the same order; the final merge meets the partial buffers in
    // shuffle order, which Spark itself does not fix: hence the relative tolerance of 1e-12.
    val out = checkAnswerAndOperator(data.groupBy("k").agg(variances.head, variances.tail: _*),
      exactOperators = Some(2), tolerance = 1e-12)
    assert(out.size == 20)
    // key 19 has only null values: every statistic null
    assert(out.exists(r => r.getInt(0) == 19 && (1 until r.length).forall(r.isNullAt)), out)
    checkAnswerAndOperator(data.agg(variances.head, variances.tail: _*), exactOperators = Some(2), tolerance = 1e-12)
    // one partition: the same fold in both engines, compared exactly
    checkAnswerAndOperator(spark.createDataFrame(rows.asJava, schema).coalesce(1).groupBy("k")
      .agg(variances.head, variances.tail: _*), exactOperators = Some(2))
  }

  test("stddev_samp and var_samp of one row: null, or NaN under spark.sql.legacy.statisticalAggregate") {
    val single = spark.range(0, 40, 1, 3).selectExpr("id % 20 as k", "if(id < 20, cast(id as double), null) as x")
    val plain = checkAnswerAndOperator(single.groupBy("k").agg(stddev_samp("x"), var_samp("x"), stddev_pop("x"),
      var_pop("x")), exactOperators = Some(2))
    assert(plain.forall(r => r.isNullAt(1) && r.isNullAt(2) && r.getDouble(3) == 0.0 && r.getDouble(4) == 0.0), plain)
    val legacy = withConf("spark.sql.legacy.statisticalAggregate" -> "true") {
      checkAnswerAndOperator(single.groupBy("k").agg(stddev_samp("x"), var_samp("x")), exactOperators = Some(2))
    }
    assert(legacy.forall(r => r.getDouble(1).isNaN && r.getDouble(2).isNaN), legacy)
  }

  test("stddev and variance: partial and final stages split between Rowmatch and vanilla, in both orders") {
    val filtered = expr("first(k) FILTER (WHERE k > 3)") // keeps the partial vanilla
    checkAnswerAndOperator(data.groupBy("k").agg(filtered, variances: _*), exactOperators = Some(1),
      tolerance = 1e-12)
    val interval = expr("make_dt_interval(0, 0, 0, count(*))").as("iv")
    checkAnswerAndOperator(data.groupBy("k").agg(interval, variances: _*), exactOperators = Some(1),
      tolerance = 1e-12)
  }

  test("stddev and variance over an empty input are null, and over infinities NaN as in Spark") {
    withConf("spark.sql.adaptive.optimizer.excludedRules" ->
        "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation") {
      val empty = spark.range(0, 50, 1, 3).filter("id < 0").selectExpr("cast(id as double) x")
      val global = checkAnswerAndOperator(empty.agg(stddev_samp("x"), var_pop("x")), minOperators = 1)
      assert(global == Seq(Row(null, null)), global)
    }
    val special = spark.range(0, 30, 1, 2).selectExpr("id % 3 as k",
      "case id % 5 when 0 then double('Infinity') when 1 then double('-Infinity') when 2 then double('NaN')" +
        " when 3 then -0.0 else 1e308 end as x")
    checkAnswerAndOperator(special.groupBy("k").agg(stddev_samp("x"), var_pop("x"), stddev_pop("x")),
      exactOperators = Some(2))
  }
}
