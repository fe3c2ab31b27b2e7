package io.rowmatch.spark.joins

import java.math.{BigDecimal => JBigDecimal}
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime
import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row, SparkSession}

/** Generated join inputs: small key domains so keys repeat, with nulls, NaN, -0.0 and awkward strings. */
object JoinData {
  val allTypesSchema: StructType = StructType(Seq(
    StructField("b", ByteType), StructField("sh", ShortType), StructField("i", IntegerType),
    StructField("l", LongType), StructField("f", FloatType), StructField("d", DoubleType),
    StructField("dec", DecimalType(10, 2)), StructField("big", DecimalType(30, 5)),
    StructField("s", StringType), StructField("bin", BinaryType), StructField("bool", BooleanType),
    StructField("dt", DateType), StructField("ts", TimestampType), StructField("ntz", TimestampNTZType),
    StructField("payload", StringType)))

  val keyColumns: Seq[String] = allTypesSchema.fieldNames.toSeq.filterNot(_ == "payload")

  private val doubles = Array(0.0, -0.0, 1.5, Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000123L),
    Double.PositiveInfinity, -2.25)
  private val floats = Array(0.0f, -0.0f, 1.5f, Float.NaN, java.lang.Float.intBitsToFloat(0x7fc00123), -2.25f)
  private val strings = Array("", "a", "ab", "abc", "é", "日本", "b")

  /** `n` rows over every key type; each value null with probability `nulls`; domains of size about `domain`. */
  def allTypes(spark: SparkSession, n: Int, seed: Long, nulls: Double = 0.1, domain: Int = 6): DataFrame = {
    val rnd = new Random(seed)
    def maybe(v: => Any): Any = if (rnd.nextDouble() < nulls) null else v
    val rows = (0 until n).map { row =>
      val k = rnd.nextInt(domain)
      Row(
        maybe((k - 2).toByte), maybe((k * 300).toShort), maybe(k - 3), maybe(k.toLong << 33),
        maybe(floats(k % floats.length)), maybe(doubles(k % doubles.length)),
        maybe(new JBigDecimal(k).movePointLeft(2)), maybe(new JBigDecimal("12345678901234567890." + k)),
        maybe(strings(k % strings.length)), maybe(Array.fill(k % 4)(k.toByte)), maybe(k % 2 == 0),
        maybe(Date.valueOf(s"2024-01-0${1 + k % 9}")), maybe(new Timestamp(1700000000000L + k * 1000L)),
        maybe(LocalDateTime.of(2024, 1, 1 + k % 9, k % 24, 0)),
        s"p$row")
    }
    spark.createDataFrame(rows.asJava, allTypesSchema)
  }

  /** (k int, v long): `n` rows, keys in [0, domain) with `nullKeys` of them null. */
  def intKeys(spark: SparkSession, n: Int, domain: Int, seed: Long, nullKeys: Double = 0.1): DataFrame = {
    val rnd = new Random(seed)
    val rows = (0 until n).map { i =>
      Row(if (rnd.nextDouble() < nullKeys) null else Integer.valueOf(rnd.nextInt(domain)), i.toLong)
    }
    spark.createDataFrame(rows.asJava, StructType(Seq(StructField("k", IntegerType), StructField("v", LongType))))
  }
}
