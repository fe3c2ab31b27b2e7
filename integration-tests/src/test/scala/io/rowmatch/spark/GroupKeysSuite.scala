package io.rowmatch.spark

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row}

/**
 * Struct and array group keys (nulls at every level, empty arrays, nesting), floating values inside them
 * (Spark normalizes those keys with an expression, which runs below the Rowmatch aggregate), and keys
 * that stay vanilla with their reason.
 */
class GroupKeysSuite extends RowmatchQueryTest {

  private lazy val inner = StructType(Seq(StructField("x", IntegerType), StructField("t", StringType)))
  private lazy val schema = StructType(Seq(
    StructField("st", StructType(Seq(StructField("a", IntegerType), StructField("b", StringType),
      StructField("c", DecimalType(20, 2)), StructField("in", inner)))),
    StructField("ai", ArrayType(IntegerType)),
    StructField("as", ArrayType(StringType)),
    StructField("aos", ArrayType(inner)),
    StructField("sd", StructType(Seq(StructField("d", DoubleType), StructField("f", FloatType)))),
    StructField("ad", ArrayType(DoubleType)),
    StructField("v", LongType)))

  /** Few distinct values per column, so groups repeat; nulls at the top and inside. */
  private lazy val rows: Seq[Row] = {
    val rnd = new scala.util.Random(23)
    def pick[T](xs: T*): T = xs(rnd.nextInt(xs.size))
    val strs = Seq("", "a", "日本", null)
    val doubles = Seq(0.0, -0.0, Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000abcL), 2.5)
    (0 until 500).map { i =>
      Row(
        pick(null, Row(1, "a", new java.math.BigDecimal("1.50"), Row(1, "x")), Row(1, "a", null, null),
          Row(null, null, null, null), Row(1, "a", new java.math.BigDecimal("1.50"), Row(null, "x")),
          Row(2, "", new java.math.BigDecimal("-3.00"), Row(1, null))),
        pick(null, Seq(), Seq(1), Seq(1, null), Seq(null), Seq(1, 2), Seq(2, 1)),
        pick(null, Seq(), Seq(""), Seq("a", ""), Seq("", "a"), Seq(null, "日本")),
        pick(null, Seq(), Seq(Row(1, "x")), Seq(null), Seq(Row(null, null)), Seq(Row(1, "x"), null)),
        pick(null, Row(doubles(rnd.nextInt(doubles.size)), pick(0.0f, -0.0f, Float.NaN, 1.0f)), Row(null, null)),
        pick(null, Seq(), Seq(0.0), Seq(-0.0), Seq(Double.NaN), Seq(doubles(3), null), Seq(2.5, -0.0)),
        if (rnd.nextInt(9) == 0) null else rnd.nextLong() % 1000L)
    }
  }

  private def data: DataFrame = spark.createDataFrame(rows.asJava, schema).repartition(3)

  Seq("st", "ai", "as", "aos").foreach { k =>
    test(s"group by $k") {
      val out = checkAnswerAndOperator(data.groupBy(k).agg(count("*"), sum("v"), max("v")), exactOperators = Some(2))
      assert(out.size > 2)
    }
  }

  test("struct and array keys together, and distinct on them") {
    checkAnswerAndOperator(data.groupBy("st", "ai", "aos").agg(count("*"), min("v")), exactOperators = Some(2))
    checkAnswerAndOperator(data.select("st", "as").distinct(), exactOperators = Some(2))
    checkAnswerAndOperator(data.select(struct(col("ai"), col("st")).as("nested")).distinct(), exactOperators = Some(2))
  }

  test("floating values inside struct and array keys: Spark's normalized key expression runs below ours") {
    // NaN payloads are one group, -0.0 and 0.0 are one group, as in vanilla Spark
    val bySd = checkAnswerAndOperator(data.groupBy("sd").agg(count("*"), sum("v")), exactOperators = Some(2))
    def norm(x: Any): Any = x match {
      case d: Double => if (d.isNaN) "NaN" else if (d == 0.0) 0.0 else d
      case f: Float => if (f.isNaN) "NaN" else if (f == 0.0f) 0.0f else f
      case other => other
    }
    val sdGroups = rows.map(r => Option(r.getStruct(4)).map(s => (norm(s.get(0)), norm(s.get(1))))).distinct.size
    assert(bySd.size == sdGroups && sdGroups > 5, bySd)
    val byAd = checkAnswerAndOperator(data.groupBy("ad").agg(count("*")), exactOperators = Some(2))
    assert(byAd.size == 6, byAd) // null, [], [0.0] (with [-0.0]), [NaN], [NaN, null], [2.5, 0.0]
    checkAnswerAndOperator(data.select("sd", "ad", "st").distinct(), exactOperators = Some(2))
  }

  test("a key Rowmatch cannot group stays vanilla and says why") {
    val df = withConf("spark.rowmatch.enabled" -> "true") {
      val d = data.select(struct(col("v"), lit("x").cast("string collate UNICODE_CI").as("ci")).as("k"), col("v"))
        .groupBy("k").agg(count("*"))
      d.collect()
      d
    }
    assert(rowmatchAggregates(df) == 0, df.queryExecution.executedPlan.treeString)
    assert(fallbackReasons(df).exists(_.contains("collation UNICODE_CI does not compare bytes")), fallbackReasons(df))
  }
}
