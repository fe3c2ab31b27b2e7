package io.rowmatch.spark.scan

import java.io.File
import java.math.{BigDecimal => JBigDecimal}
import java.nio.charset.StandardCharsets
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._

import io.rowmatch.spark.{RowmatchQueryTest, SuiteDirectory}
import io.rowmatch.spark.config.RowmatchConf

/**
 * Rowmatch's Parquet page decoder against Spark's own vectorized reader: every file is read with the decoder on and
 * off and the rows must be the same bit for bit (NaN payloads, -0.0), for every column type (the ones the decoder
 * takes and the ones it leaves to Spark's column reader in the same batch), nulls from none to all, files of
 * 0/1/63/64/65/5000 rows, dictionary pages, plain pages, and a dictionary that fills up mid-chunk (dictionary then
 * plain pages in one batch), data pages v1 and v2 (v2's delta encodings go to Spark's reader), small pages and row
 * groups against small batches, row groups that column indexes filter, missing and partition columns. Each case
 * asserts the decoder read chunks (and, where a type or encoding is not its, that Spark's reader read those).
 */
class ParquetDecoderSuite extends RowmatchQueryTest with SuiteDirectory {

  override protected def directoryPrefix: String = "rowmatch-parquet-decoder"

  private val schema = StructType(Seq(
    StructField("id", IntegerType, nullable = false),
    StructField("i", IntegerType), StructField("l", LongType), StructField("f", FloatType),
    StructField("d", DoubleType), StructField("s", StringType), StructField("b", BinaryType),
    StructField("dt", DateType), StructField("ts", TimestampType), StructField("ntz", TimestampNTZType),
    StructField("d9", DecimalType(9, 2)), StructField("d18", DecimalType(18, 4)),
    StructField("d38", DecimalType(38, 10)), StructField("flag", BooleanType), StructField("tiny", ByteType)))

  private val floats = Array(0.0f, -0.0f, Float.NaN, java.lang.Float.intBitsToFloat(0x7fc00001), Float.MinPositiveValue,
    Float.MaxValue, Float.NegativeInfinity, 1.5f)
  private val doubles = Array(0.0, -0.0, Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000123L),
    Double.MinPositiveValue, Double.MaxValue, Double.PositiveInfinity, -2.25)
  private val strings = Array("", "a", "é", "日本語", "\uD83D\uDE00 emoji", "x" * 300, "tab\tline\n", "NULL")

  /** Random rows: `nullShare` of each nullable value null; `distinct` values per column (small: dictionary pages). */
  private def rows(n: Int, nullShare: Double, distinct: Int, seed: Long): Seq[Row] = {
    val r = new Random(seed)
    def pick[T](values: Int => T): T = values(r.nextInt(distinct))
    def orNull(v: => Any): Any = if (r.nextDouble() < nullShare) null else v
    (0 until n).map { id =>
      Row(id,
        orNull(pick(k => if (k % 5 == 0) Int.MinValue + k else k * 7919 - 1000)),
        orNull(pick(k => if (k % 7 == 0) Long.MaxValue - k else k.toLong * 1000000007L)),
        orNull(pick(k => if (k < floats.length) floats(k) else k * 0.25f)),
        orNull(pick(k => if (k < doubles.length) doubles(k) else k * 1e-3)),
        orNull(pick(k => if (k < strings.length) strings(k) else s"v$k-" + "é" * (k % 4))),
        orNull(pick(k => s"b$k".getBytes(StandardCharsets.UTF_8))),
        orNull(pick(k => Date.valueOf(java.time.LocalDate.of(1, 1, 1).plusDays(k * 3673L % 3652000)))),
        orNull(pick(k => Timestamp.valueOf(LocalDateTime.of(1969, 12, 31, 23, 59, 59).plusSeconds(k * 86399L)))),
        orNull(pick(k => LocalDateTime.of(2200, 1, 1, 0, 0).minusMinutes(k * 997L))),
        orNull(pick(k => if (k % 3 == 0) new JBigDecimal("-9999999.99") else JBigDecimal.valueOf(k * 101L, 2))),
        orNull(pick(k => if (k % 3 == 0) new JBigDecimal("99999999999999.9999") else JBigDecimal.valueOf(-k * 7L, 4))),
        orNull(pick(k => new JBigDecimal(s"${"9" * 28}.${k % 10}")) ),
        orNull(pick(k => k % 2 == 0)),
        orNull(pick(k => (k % 256 - 128).toByte)))
    }
  }

  private def write(name: String, data: Seq[Row], options: (String, String)*): String = {
    val path = new File(dir, name).getPath
    val writer = spark.createDataFrame(data.asJava, schema).repartition(2).write
    options.foldLeft(writer) { case (w, (k, v)) => w.option(k, v) }.parquet(path)
    path
  }

  /** `query` over the file with the decoder off and on: the same rows bit for bit; returns the chunks decoded. */
  private def compare(query: => DataFrame, context: String): (Long, Long) = {
    val expected = withConf(RowmatchConf.SCAN_PARQUET_DECODER -> "false") {
      val before = ParquetBatches.chunksDecoded()
      val rows = query.collect().toSeq
      assert(ParquetBatches.chunksDecoded() == before, s"the decoder ran while off: $context")
      rows
    }
    val decoded = ParquetBatches.chunksDecoded()
    val bySpark = ParquetBatches.chunksReadBySpark()
    val actual = query.collect().toSeq
    io.rowmatch.spark.RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 0.0, context, bitExact = true)
    (ParquetBatches.chunksDecoded() - decoded, ParquetBatches.chunksReadBySpark() - bySpark)
  }

  private val sizes = Seq(0, 1, 63, 64, 65, 5000)

  for (v2 <- Seq(false, true); (nulls, label) <- Seq(0.0 -> "no", 0.05 -> "some", 0.6 -> "most", 1.0 -> "all")) {
    test(s"every type, ${if (v2) "v2" else "v1"} pages, $label nulls, dictionary and plain pages, 0..5000 rows") {
      val version = if (v2) "v2" else "v1"
      withConf("spark.sql.parquet.columnarReaderBatchSize" -> "100") {
        for (n <- sizes; distinct <- Seq(3, 4000)) {
          val path = write(s"t-$version-$label-$n-$distinct", rows(n, nulls, distinct, n * 31L + distinct),
            "parquet.writer.version" -> (if (v2) "PARQUET_2_0" else "PARQUET_1_0"),
            "parquet.page.size" -> "2048", "parquet.dictionary.page.size" -> "4096", "parquet.block.size" -> "65536")
          val (decoded, bySpark) = compare(spark.read.parquet(path), path)
          if (n > 0) {
            assert(decoded > 0, s"the decoder read no chunk of $path")
            assert(bySpark > 0, s"Spark's reader read no chunk (decimal(38), boolean, tinyint) of $path")
          }
        }
      }
    }
  }

  test("a dictionary that fills up mid-chunk: dictionary pages then plain ones, inside one batch") {
    val path = write("overflow", rows(20000, 0.1, 20000, 7), "parquet.dictionary.page.size" -> "1024",
      "parquet.page.size" -> "4096")
    withConf("spark.sql.parquet.columnarReaderBatchSize" -> "4096") {
      val (decoded, _) = compare(spark.read.parquet(path).select("id", "i", "l", "f", "d", "s", "d9", "d18"), path)
      assert(decoded > 0)
    }
    // The plugin's operators read the vectors too (dictionary-aware filter and aggregate over the decoded columns).
    compare(spark.read.parquet(path).where("i > 1000 and s <> ''").groupBy("d9").count(), path)
  }

  test("row groups that column indexes filter are read by Spark's column readers, the others decoded") {
    val sorted = rows(30000, 0.02, 30000, 11).sortBy(_.getInt(0))
    val path = new File(dir, "sorted").getPath
    spark.createDataFrame(sorted.asJava, schema).coalesce(1).write.option("parquet.page.size", "1024")
      .option("parquet.block.size", "200000").parquet(path)
    val (decoded, bySpark) = compare(spark.read.parquet(path).where("id between 1000 and 1400 or id > 29990"), path)
    assert(bySpark > 0, "a filtered row group should be read by Spark's column readers")
    val (all, _) = compare(spark.read.parquet(path).where("l is not null or l is null"), path)
    assert(all > 0 && decoded >= 0)
  }

  test("missing columns, partition columns, a column read twice, and a scan with no data columns") {
    val path = write("parts", rows(3000, 0.1, 50, 5).map(r => Row.fromSeq(r.toSeq)), "parquet.page.size" -> "2048")
    val withPart = new File(dir, "partitioned").getPath
    spark.read.parquet(path).withColumn("p", org.apache.spark.sql.functions.expr("id % 3"))
      .write.partitionBy("p").parquet(withPart)
    val wider = schema.add(StructField("absent", LongType)).add(StructField("absent_s", StringType))
    val (decoded, _) = compare(spark.read.schema(wider).parquet(path).select("absent", "i", "absent_s", "s"), path)
    assert(decoded > 0)
    compare(spark.read.parquet(withPart).select("p", "i", "s", "d9"), withPart)
    compare(spark.read.parquet(withPart).where("p = 1").selectExpr("i", "i + 1 AS j", "s"), withPart)
    compare(spark.read.parquet(withPart).selectExpr("p"), withPart)
    compare(spark.read.parquet(path).selectExpr("count(*)"), path)
  }

  test("off-heap column vectors: the decoder writes them through Spark's vector API") {
    val path = write("offheap", rows(3000, 0.05, 40, 9), "parquet.page.size" -> "2048")
    withConf("spark.sql.columnVector.offheap.enabled" -> "true", "spark.sql.parquet.columnarReaderBatchSize" -> "500") {
      val (decoded, _) = compare(spark.read.parquet(path), path)
      assert(decoded > 0)
      compare(spark.read.parquet(path).where("i > 0").groupBy("s").count(), path)
    }
  }

  test("a file whose pages are damaged fails with Spark's read error naming the file, not a crash or wrong rows") {
    val path = write("good", rows(100, 0.0, 10, 3))
    val file = new File(path).listFiles().filter(_.getName.endsWith(".parquet")).maxBy(_.length())
    val bytes = java.nio.file.Files.readAllBytes(file.toPath)
    // Cut the file's data (not its footer): the page data a chunk points at is gone.
    val broken = new File(dir, "broken")
    broken.mkdirs()
    val copy = new File(broken, "part-0.parquet")
    val footerLength = java.nio.ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt
    val footerStart = bytes.length - 8 - footerLength
    val mangled = bytes.clone()
    java.util.Arrays.fill(mangled, 4, footerStart, 0x7f.toByte)
    java.nio.file.Files.write(copy.toPath, mangled)
    val e = intercept[Exception](spark.read.parquet(broken.getPath).select("i", "s").collect())
    assert(e.getMessage.contains("part-0.parquet"), e.getMessage)
  }
}
