package io.rowmatch.spark

import java.math.BigDecimal
import java.sql.Date
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row}

/**
 * A partial aggregate that stops aggregating (spark.rowmatch.aggregate.skipPartial.*) and passes rows through
 * as Spark's partial buffers: answers equal vanilla Spark's, and the operator's "partial aggregation skipped
 * rows" metric proves the skip happened (or, where it must not, that it did not). The skip is forced on small
 * data with minRows=1 and ratio=0 (skip once a batch after the first makes any new group). Off by default.
 */
class PartialSkipSuite extends RowmatchQueryTest {
  private val enabled = "spark.rowmatch.aggregate.skipPartial.enabled" -> "true"
  private val forceSkip = Seq(enabled,
    "spark.rowmatch.aggregate.skipPartial.minRows" -> "1",
    "spark.rowmatch.aggregate.skipPartial.ratio" -> "0.0")

  private lazy val schema = StructType(Seq(
    StructField("k", IntegerType), StructField("i", IntegerType), StructField("l", LongType),
    StructField("d", DoubleType), StructField("f", FloatType), StructField("s", StringType),
    StructField("dec", DecimalType(10, 2)), StructField("date", DateType), StructField("b", BooleanType),
    StructField("fk", StringType), StructField("fn", LongType)))

  /**
   * 2400 rows over 800 keys k (so every batch of 64 makes new groups). fk is a function of k (first/last
   * of it is defined whatever the row order); fn is that function or null (defined under ignoreNulls).
   * The rest: nulls, NaN, -0.0, multibyte and empty strings.
   */
  private lazy val rows: Seq[Row] = {
    val rnd = new scala.util.Random(11)
    def maybe[T](v: => T): Any = if (rnd.nextInt(7) == 0) null else v
    val doubles = Seq(0.0, -0.0, Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000123L), 1.5, -2.25,
      Double.PositiveInfinity)
    val strings = Seq("", "a", "ünï", "日本", "ab")
    (0 until 2400).map { _ =>
      val k = rnd.nextInt(800)
      Row(if (k == 0) null else k, maybe(rnd.nextInt(100) - 50), maybe(rnd.nextLong() % 100000),
        maybe(doubles(rnd.nextInt(doubles.size))), maybe(Seq(0.0f, -0.0f, Float.NaN, 2.5f)(rnd.nextInt(4))),
        maybe(strings(rnd.nextInt(strings.size))), maybe(new BigDecimal(s"${rnd.nextInt(2000) - 1000}.25")),
        maybe(Date.valueOf(s"202${rnd.nextInt(10)}-0${1 + rnd.nextInt(9)}-1${rnd.nextInt(10)}")),
        maybe(rnd.nextBoolean()), s"v$k-日", if (rnd.nextInt(3) == 0) null else k.toLong * 31)
    }
  }

  private def data: DataFrame = spark.createDataFrame(rows.asJava, schema).repartition(3)

  private def skippedRows(df: DataFrame): Long =
    executedNodes(df).filter(_.nodeName == "RowmatchHashAggregate")
      .map(_.metrics("partialSkippedRows").value).sum

  /** Plugin off vs on under the given settings; returns the Rowmatch rows and the rows its partial skipped. */
  private def check(query: => DataFrame, conf: Seq[(String, String)], tolerance: Double = 0.0): (Seq[Row], Long) = {
    withConf(conf: _*) {
      val expected = withConf("spark.rowmatch.enabled" -> "false")(query.collect().toSeq)
      withConf("spark.rowmatch.enabled" -> "true") {
        val df = query
        val actual = df.collect().toSeq
        val plan = df.queryExecution.executedPlan.treeString
        assert(rowmatchAggregates(df) >= 2, s"expected the partial and the final as Rowmatch:\n$plan")
        RowComparison.assertSameRows(expected, actual, ordered = false, tolerance, plan)
        (actual, skippedRows(df))
      }
    }
  }

  test("dropDuplicates-style first/last: same answer, rows skipped, built groups kept") {
    val (out, skipped) = check(
      data.groupBy("k").agg(first("fk"), first("fn", ignoreNulls = true), last("fk"),
        last("fn", ignoreNulls = true), count("*")), forceSkip)
    assert(out.size == rows.map(_.get(0)).distinct.size)
    assert(skipped > 0 && skipped < rows.size, s"skipped $skipped of ${rows.size}")
    // every key's first(fn, ignoreNulls) is null exactly when all its fn are null
    val anyFn = rows.groupBy(_.get(0)).map { case (k, rs) => k -> rs.exists(_.get(10) != null) }
    assert(out.forall(r => anyFn(r.get(0)) == !r.isNullAt(2)))
  }

  test("dropDuplicates on a key: one row per key, each an input row") {
    val (out, skipped) = withConf(forceSkip: _*) {
      val df = data.select("k", "fk").dropDuplicates("k")
      val result = withConf("spark.rowmatch.enabled" -> "true")(df.collect().toSeq)
      (result, skippedRows(df))
    }
    assert(skipped > 0)
    assert(out.map(_.get(0)).toSet == rows.map(_.get(0)).toSet && out.size == out.map(_.get(0)).distinct.size)
    val input = rows.map(r => (r.get(0), r.get(9))).toSet
    assert(out.forall(r => input.contains((r.get(0), r.get(1)))))
  }

  test("distinct with normalized float keys (NaN payloads, -0.0) and strings") {
    val (out, skipped) = check(data.select("k", "d", "f", "s").distinct(), forceSkip)
    assert(skipped > 0)
    assert(out.nonEmpty)
  }

  test("count, sum, avg, min and max over every pass-through type") {
    val (_, skipped) = check(
      data.groupBy("k").agg(count("*"), count("i"), expr("count(i, s)"), sum("i"), sum("l"), sum("d"), sum("f"),
        avg("i"), avg("l"), avg("d"), avg("f"), min("i"), max("l"), min("d"), max("f"), min("s"), max("s"),
        min("dec"), max("dec"), min("date"), max("b")),
      forceSkip, tolerance = 1e-12)
    assert(skipped > 0)
  }

  test("stddev and variance pass through as one row's (n, avg, m2): NaN, infinities, -0.0, nulls") {
    val (_, skipped) = check(data.groupBy("k").agg(stddev_samp("d"), var_pop("d"), stddev_pop("i"), var_samp("l"),
      stddev_samp("f"), var_samp("dec")), forceSkip, tolerance = 1e-12)
    assert(skipped > 0)
  }

  test("sum and avg of -0.0 alone stay Spark's 0.0") {
    val zeros = spark.range(0, 400, 1, 2).selectExpr("id as k", "cast(-0.0 as double) z", "cast(-0.0 as float) y")
    val (out, skipped) = check(zeros.groupBy("k").agg(sum("z"), avg("z"), sum("y"), avg("y")), forceSkip)
    assert(skipped > 0)
    assert(out.forall(r => (1 to 4).forall(c => java.lang.Double.doubleToRawLongBits(r.getDouble(c)) == 0L)), out.take(3))
  }

  test("no skip without a pass-through for every function (decimal sum), nor when switched off") {
    val (_, decimalSkipped) = check(data.groupBy("k").agg(sum("dec"), count("*")), forceSkip)
    assert(decimalSkipped == 0)
    val (_, offSkipped) = check(data.groupBy("k").agg(first("fk"), count("*")),
      forceSkip.filterNot(_ == enabled) :+ ("spark.rowmatch.aggregate.skipPartial.enabled" -> "false"))
    assert(offSkipped == 0)
  }

  test("off by default, even where it would skip") {
    val ids = spark.range(0, 300000, 1, 1).selectExpr("id * 7 as key", "cast(id % 13 as string) s")
    val (_, skipped) = check(ids.dropDuplicates("key").groupBy("s").agg(count("*")), Seq.empty)
    assert(skipped == 0)
  }

  test("default thresholds: small or well-reducing input aggregates fully") {
    val (_, small) = check(data.groupBy("k").agg(first("fk"), count("*")), Seq(enabled))
    assert(small == 0)
    // 300K rows in key order over 1,000 keys: the first 1,000 rows are all new groups, the rest none.
    val reducing = spark.range(0, 300000, 1, 1).selectExpr("id % 1000 as g", "id as v")
    val (out, skipped) = check(reducing.groupBy("g").agg(sum("v"), count("*")), Seq(enabled))
    assert(out.size == 1000 && skipped == 0)
  }

  test("default thresholds: an all-distinct key past minRows skips, with the same answer") {
    val ids = spark.range(0, 300000, 1, 1).selectExpr("id * 7 as key", "cast(id % 13 as string) s")
    val (out, skipped) = check(ids.dropDuplicates("key").groupBy("s").agg(count("*")), Seq(enabled))
    assert(out.map(_.getLong(1)).sum == 300000)
    // one input partition: the probe judges rows [131072, 262144) and skips the rest of the input
    assert(skipped > 0 && skipped <= 300000 - 262144, s"skipped $skipped")
  }
}
