package io.rowmatch.spark

import java.math.BigDecimal
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row}

/** Every supported key type and every supported function x input type, with nulls, against vanilla Spark. */
class AggregateTypesSuite extends RowmatchQueryTest {

  private lazy val schema = StructType(Seq(
    StructField("bool", BooleanType), StructField("i8", ByteType), StructField("i16", ShortType),
    StructField("i32", IntegerType), StructField("i64", LongType), StructField("f32", FloatType),
    StructField("f64", DoubleType), StructField("dec", DecimalType(10, 2)), StructField("bigdec", DecimalType(30, 5)),
    StructField("str", StringType), StructField("bin", BinaryType), StructField("date", DateType),
    StructField("ts", TimestampType), StructField("ntz", TimestampNTZType)))

  private lazy val rows: Seq[Row] = {
    val rnd = new scala.util.Random(3)
    def maybe[T](v: => T): Any = if (rnd.nextInt(8) == 0) null else v
    (0 until 400).map { _ =>
      val k = rnd.nextInt(6)
      Row(
        maybe(k % 2 == 0), maybe((k - 3).toByte), maybe((k * 1000 - 2500).toShort), maybe(k * 7 - 20),
        maybe(k.toLong * 1000000007L - 3), maybe(Seq(0.0f, -0.0f, Float.NaN, 1.25f, -7.5f, 3.0f)(k)),
        maybe(Seq(0.0, -0.0, Double.NaN, 1e300, -2.5, 3.0)(k)), maybe(new BigDecimal(s"${k * 13 - 40}.25")),
        maybe(new BigDecimal(s"12345678901234567890.${k}0001")), maybe(Seq("", "a", "ä日本", "ab", "b", "a\u0000")(k)),
        maybe(Array[Byte](k.toByte, 0, (k * 3).toByte)), maybe(Date.valueOf(s"202${k}-0${k + 1}-1${k}")),
        maybe(Timestamp.valueOf(s"20${10 + k}-01-02 03:04:0${k}.12345")),
        maybe(LocalDateTime.of(2000 + k, 1 + k, 1, k, 0)))
    }
  }

  private def data: DataFrame = spark.createDataFrame(rows.asJava, schema).repartition(3)

  private val keyColumns = Seq("bool", "i8", "i16", "i32", "i64", "f32", "f64", "dec", "bigdec", "str", "bin",
    "date", "ts", "ntz")

  keyColumns.foreach { k =>
    test(s"group by $k") {
      checkAnswerAndOperator(data.groupBy(k).agg(count("*"), count("i32"), sum("i64"), max("date")),
        minOperators = 2)
    }
  }

  test("distinct on all key types at once") {
    checkAnswerAndOperator(data.select(keyColumns.map(col): _*).distinct(), minOperators = 2)
  }

  test("sum, avg, min, max over every supported input type") {
    val numeric = Seq("i8", "i16", "i32", "i64", "f32", "f64")
    val aggs = numeric.flatMap(c => Seq(sum(c), avg(c), min(c), max(c), count(c))) ++
      Seq("date", "ts", "ntz").flatMap(c => Seq(min(c), max(c))) ++ Seq(sum("bigdec"))
    checkAnswerAndOperator(data.groupBy("str").agg(aggs.head, aggs.tail: _*), minOperators = 2, tolerance = 1e-12)
  }

  test("first over every type, and dropDuplicates keeping whole rows") {
    val one = data.coalesce(1)
    val out = withConf("spark.rowmatch.enabled" -> "true") {
      val df = one.dropDuplicates("i32")
      val r = df.collect().toSeq
      assert(rowmatchAggregates(df) >= 1, df.queryExecution.executedPlan.treeString)
      r
    }
    val keys = out.map(_.get(3))
    assert(keys.distinct.size == keys.size)
    assert(keys.toSet == rows.map(_.get(3)).toSet)
    val input = rows.map(r => r.toSeq.map(render)).toSet
    assert(out.forall(r => input.contains(r.toSeq.map(render))))
  }

  private def render(v: Any): String = v match {
    case b: Array[Byte] => b.mkString("[", ",", "]")
    case other => String.valueOf(other)
  }

  test("mixed plan: a Rowmatch partial stage feeds a vanilla final stage") {
    // The final's output type (an interval) is not one we produce, so only the partial is replaced.
    val rows = checkAnswerAndOperator(
      data.groupBy("str").agg(expr("make_dt_interval(0, 0, 0, sum(i32))").as("iv"), count("*")),
      exactOperators = Some(1))
    assert(rows.nonEmpty)
    val df = withConf("spark.rowmatch.enabled" -> "true") {
      val d = data.groupBy("str").agg(expr("make_dt_interval(0, 0, 0, sum(i32))").as("iv"))
      d.collect()
      d
    }
    assert(fallbackReasons(df).exists(_.contains("interval")), fallbackReasons(df))
  }
}
