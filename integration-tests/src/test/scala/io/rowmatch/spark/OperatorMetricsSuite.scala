package io.rowmatch.spark

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.functions._

/**
 * Each Rowmatch operator's SQL metrics, read from the plan that ran and checked against the work done: the
 * exchange's data size is exactly the rows' UnsafeRow size (what vanilla reports, and AQE reads), a join's
 * build side size grows with its rows, times are positive where work happened, and row counts are the rows.
 */
class OperatorMetricsSuite extends RowmatchQueryTest {
  private def ran(df: DataFrame): Seq[SparkPlan] = {
    df.collect()
    executedNodes(df)
  }

  private def only(nodes: Seq[SparkPlan], name: String): Seq[SparkPlan] = {
    val found = nodes.filter(_.nodeName == name)
    assert(found.nonEmpty, s"no $name ran: ${nodes.map(_.nodeName).mkString(", ")}")
    found
  }

  private def metric(nodes: Seq[SparkPlan], name: String): Long = nodes.map(_.metrics(name).value).sum

  test("the Arrow shuffle reports the rows' UnsafeRow size as its data size, the encoded bytes apart") {
    // Two longs: an 8-byte null bitmap and two 8-byte slots, 24 bytes a row. A string adds its bytes padded to 8.
    val n = 10000
    val longs = spark.range(n).select(col("id"), (col("id") * 7).as("v")).repartition(3, col("id"))
      .groupBy("id").agg(sum("v"))
    val exchanges = only(ran(longs), "RowmatchShuffleExchange")
    val first = exchanges.filter(_.metrics("rowsWritten").value == n)
    assert(first.size == 1, exchanges.map(_.metrics("rowsWritten").value))
    assert(metric(first, "dataSize") == 24L * n)
    assert(metric(first, "encodedSize") > 0)

    val strings = spark.range(n).select(col("id"), concat(lit("é"), col("id").cast("string")).as("s"))
      .repartition(2, col("id")).groupBy("id").agg(max("s"))
    val expectedVar = (0 until n).map(i => (("é" + i).getBytes("UTF-8").length + 7) / 8 * 8L).sum
    val withStrings = only(ran(strings), "RowmatchShuffleExchange").filter(_.metrics("rowsWritten").value == n)
    assert(metric(withStrings, "dataSize") == 24L * n + expectedVar)
  }

  test("a shuffled hash join reports its build time, build side size and probe time") {
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1", "spark.sql.join.preferSortMergeJoin" -> "true") {
      def join(buildRows: Int): Seq[SparkPlan] = {
        val build = spark.range(buildRows).select(col("id").as("k"), col("id").as("b"))
        val probe = spark.range(20000).select((col("id") % buildRows).as("k"), col("id").as("p"))
        val nodes = only(ran(probe.join(build, "k")), "RowmatchHashJoin")
        assert(metric(nodes, "numOutputRows") == 20000)
        assert(metric(nodes, "buildTime") > 0)
        assert(metric(nodes, "probeTime") > 0)
        nodes
      }
      val small = metric(join(100), "buildDataSize")
      val large = metric(join(50000), "buildDataSize")
      assert(large >= 50000L * 16, s"two long columns of 50,000 rows in $large bytes")
      assert(large > small, s"$large bytes for 50,000 build rows, $small for 100")
    }
  }

  test("a broadcast hash join counts the time of its one build, and no per-task build size") {
    withConf("spark.sql.autoBroadcastJoinThreshold" -> (10L << 20).toString) {
      val build = spark.range(1000).select(col("id").as("k"), col("id").as("b"))
      val probe = spark.range(20000).select((col("id") % 1000).as("k"), col("id").as("p")).repartition(3)
      val nodes = only(ran(probe.join(broadcast(build), "k")), "RowmatchHashJoin")
      assert(metric(nodes, "numOutputRows") == 20000)
      assert(metric(nodes, "buildTime") > 0)
      assert(metric(nodes, "probeTime") > 0)
      assert(!nodes.exists(_.metrics.contains("buildDataSize")))
    }
  }

  test("an aggregation reports the time in its build and its groups as output rows") {
    val nodes = only(ran(spark.range(30000).repartition(3).groupBy((col("id") % 777).as("g")).count()),
      "RowmatchHashAggregate")
    assert(metric(nodes, "aggTime") > 0)
    val finals = nodes.filter(_.asInstanceOf[org.apache.spark.sql.execution.aggregate.BaseAggregateExec]
      .aggregateExpressions.exists(_.mode == org.apache.spark.sql.catalyst.expressions.aggregate.Final))
    assert(metric(finals, "numOutputRows") == 777)
  }

  test("the conversion to Arrow counts the rows it converted and its own time") {
    def df = spark.range(5000).repartition(2).select(col("id"), (col("id") % 10).as("g"))
      .groupBy("g").agg(sum("id"))
    // Rows from a code-generated stage: the stage writes them into Arrow, its time includes the conversion's.
    val fromStage = only(ran(df), "RowmatchToArrow")
    assert(metric(fromStage, "numOutputRows") == 5000)
    assert(metric(fromStage, "numOutputBatches") >= 5000 / 64)
    withConf("spark.sql.codegen.wholeStage" -> "false") {
      val fromRows = only(ran(df), "RowmatchToArrow")
      assert(metric(fromRows, "numOutputRows") == 5000)
      assert(metric(fromRows, "numOutputBatches") >= 5000 / 64)
      assert(metric(fromRows, "convertTime") > 0)
    }
  }

  test("a filter over a Parquet scan reads the scan's vectors and copies only the rows it keeps into Arrow") {
    // Dictionary-encoded strings and decimals (few distinct values, as TPC-H's l_shipmode and l_discount), a
    // plain string, doubles with NaN and -0.0, and nulls: answers equal vanilla's, and the transition into
    // Arrow, fused with the filter, counts only the kept rows.
    val dir = java.nio.file.Files.createTempDirectory("rowmatch-fused").toFile
    try {
      val path = new java.io.File(dir, "t").getPath
      spark.range(30000).select(
        col("id"),
        when(col("id") % 13 === 0, lit(null)).otherwise(
          element_at(array(lit("AIR"), lit("REG AIR"), lit("MAIL"), lit(""), lit("日本語の出荷")),
            (col("id") % 5 + 1).cast("int"))).as("mode"),
        when(col("id") % 11 === 0, lit(null)).otherwise(((col("id") % 7) / 100).cast("decimal(15,2)")).as("disc"),
        when(col("id") % 17 === 0, lit(Double.NaN)).when(col("id") % 19 === 0, lit(-0.0))
          .otherwise(col("id") / 3.0).as("d"),
        concat(lit("comment "), col("id").cast("string")).as("c"))
        .repartition(2).write.parquet(path)
      def query = spark.read.parquet(path)
        .where(col("mode").isin("AIR", "日本語の出荷") && col("disc").between(lit(new java.math.BigDecimal("0.02")), lit(new java.math.BigDecimal("0.05"))) && col("d") > 100.0)
        .select(col("mode"), col("c"), (col("d") * 2).as("d2"), col("disc"))
      // Grouped, so the filter feeds a Rowmatch aggregate (alone it would stay vanilla: placement).
      def grouped = query.groupBy("mode", "disc").agg(count("*").as("n"), max("d2"), max("c"), min("c"))
      val rows = checkAnswerAndOperators(grouped, mustRun = Seq("RowmatchFilter", "RowmatchHashAggregate"))
      val kept = rows.map(_.getAs[Long]("n")).sum
      val expected = (0 until 30000).count { i =>
        val mode = if (i % 13 == 0) None else Some(Seq("AIR", "REG AIR", "MAIL", "", "日本語の出荷")(i % 5))
        val disc = if (i % 11 == 0) None else Some((i % 7) / 100.0)
        val d = if (i % 17 == 0) Double.NaN else if (i % 19 == 0) -0.0 else i / 3.0
        mode.exists(m => m == "AIR" || m == "日本語の出荷") && disc.exists(x => x >= 0.02 && x <= 0.05) &&
          (d.isNaN || d > 100.0) // Spark orders NaN above every double
      }
      assert(kept == expected && expected > 0 && expected < 30000 / 4, s"kept $kept, expected $expected")
      val nodes = ran(grouped)
      assert(metric(only(nodes, "RowmatchFilter"), "numOutputRows") == expected)
      assert(metric(only(nodes, "RowmatchToArrow"), "numOutputRows") == expected,
        "the rows the filter dropped were copied into Arrow")
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(dir)
    }
  }

  test("a columnar filter and a computing projection count their own time, a filter its output rows") {
    val dir = java.nio.file.Files.createTempDirectory("rowmatch-metrics").toFile
    try {
      val path = new java.io.File(dir, "t").getPath
      spark.range(20000).select(col("id"), (col("id") % 100).as("g")).repartition(2).write.parquet(path)
      val df = spark.read.parquet(path).where(col("id") > 5000 && col("g") < 50)
        .select(col("g"), (col("id") * 2 + 1).as("v")).groupBy("g").agg(sum("v"))
      val nodes = ran(df)
      val filters = only(nodes, "RowmatchFilter")
      val kept = (0 until 20000).count(i => i > 5000 && i % 100 < 50)
      assert(metric(filters, "numOutputRows") == kept)
      assert(metric(filters, "filterTime") > 0)
      val computing = only(nodes, "RowmatchProject").filter(_.metrics.contains("projectTime"))
      assert(computing.nonEmpty, "the projection computing id * 2 + 1 ran without a time metric")
      assert(metric(computing, "projectTime") > 0)
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(dir)
    }
  }
}
