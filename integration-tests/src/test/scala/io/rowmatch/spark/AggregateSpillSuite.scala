package io.rowmatch.spark

import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters._

import org.apache.spark.ListenerBusDrain
import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.expr

import io.rowmatch.spark.aggregate.RowmatchHashAggregateExec
import io.rowmatch.spark.config.RowmatchConf
import io.rowmatch.spark.memory.SpillFile
import io.rowmatch.spark.testing.TestFaults

/**
 * Aggregations and dedups that do not fit: the test-only grant cap (spark.rowmatch.test.taskMemoryGrant)
 * makes Spark's memory manager give each task's Rowmatch operators a few MB, so every grouped aggregate spills
 * its state to disk and merges it partition by partition. Answers equal vanilla Spark's, the spill metrics
 * count the spills, and afterwards no spill file is left and no Arrow memory is held (RowmatchQueryTest's
 * afterEach), also after a task failed in the middle of spilling.
 */
class AggregateSpillSuite extends RowmatchQueryTest {
  // TestFaults.ENABLED is a startup setting: without it the test-only settings do nothing.
  override protected lazy val spark: SparkSession =
    rowmatchSession("local[2,2]", "spark.rowmatch.batchSize" -> "256", TestFaults.ENABLED -> "true")

  private val Grant = RowmatchConf.TEST_TASK_MEMORY_GRANT_ENTRY.key

  /** 400K rows, 200K groups: about 100K groups per task, several MB of state for each. */
  private def rows: DataFrame =
    spark.range(0, 400000, 1, 4).selectExpr("id % 200000 as k", "id as v", "cast(id % 13 as double) as d",
      "cast(id as decimal(20, 2)) as dec", "concat('s', cast(id % 977 as string), 'é') as s",
      "case when id % 11 = 0 then null else id % 1000 end as n")

  private def spills(df: DataFrame): Long =
    executedNodes(df).collect { case a: RowmatchHashAggregateExec => a.metrics("numSpills").value }.sum

  private def spillBytes(df: DataFrame): Long =
    executedNodes(df).collect { case a: RowmatchHashAggregateExec => a.metrics("spillSize").value }.sum

  private def peak(df: DataFrame): Long =
    executedNodes(df).collect { case a: RowmatchHashAggregateExec => a.metrics("peakMemory").value }.max

  /** Runs the query under the grant cap against vanilla; returns the plugin's DataFrame (that ran). */
  private def checkSpilled(query: => DataFrame, grant: String = "2m", tolerance: Double = 0.0): DataFrame = {
    var last: DataFrame = null
    withConf(Grant -> grant) {
      checkAnswerAndOperator({ last = query; last }, tolerance = tolerance)
    }
    assert(spills(last) > 0, s"no spill in\n${planText(last)}")
    assert(spillBytes(last) > 0)
    assert(SpillFile.openFiles() == 0, "a spill file was left behind")
    last
  }

  test("without the cap nothing spills and the answer is the same") {
    var df: DataFrame = null
    checkAnswerAndOperator({ df = rows.groupBy("k").agg("v" -> "sum"); df })
    assert(spills(df) == 0)
    assert(peak(df) > 0)
  }

  test("Spark's memory manager sees what a Rowmatch aggregation holds (the tasks' peak execution memory)") {
    val peaks = new ConcurrentLinkedQueue[java.lang.Long]()
    val listener = new SparkListener {
      override def onTaskEnd(e: SparkListenerTaskEnd): Unit =
        if (e.taskMetrics != null) peaks.add(e.taskMetrics.peakOnHeapExecutionMemory)
    }
    ListenerBusDrain(spark.sparkContext)
    spark.sparkContext.addSparkListener(listener)
    try {
      val df = rows.groupBy("k").agg("v" -> "sum", "s" -> "max")
      df.collect()
      ListenerBusDrain(spark.sparkContext)
      assert(rowmatchAggregates(df) == 2, planText(df))
      // 100K groups a task (keys, sums, strings): several MB, reserved from the task's memory manager
      assert(peaks.asScala.map(_.longValue).max >= (2L << 20), peaks)
    } finally spark.sparkContext.removeSparkListener(listener)
  }

  test("every function over numbers, decimals and strings spills and merges to vanilla's answer") {
    val e = Seq("sum(v) as sv", "avg(d) as ad", "count(*) as c", "sum(dec) as sdec", "min(s) as mins",
      "max(s) as maxs", "avg(dec) as avgdec", "min(dec) as mindec", "max(d) as maxd", "count(n) as cn",
      "sum(n) as sn", "first(k * 2) as f", "last(k + 1) as l", "min(n) as mn").map(expr)
    checkSpilled(rows.groupBy("k").agg(e.head, e.tail: _*))
  }

  test("stddev and variance spill their (n, avg, m2) buffers and merge them as Spark does") {
    // Partial buffers meet in the final merge in an order Spark does not fix: a relative tolerance.
    checkSpilled(rows.groupBy("k").agg(expr("stddev_samp(d)"), expr("var_pop(v)"), expr("stddev_pop(dec)")),
      tolerance = 1e-12)
  }

  test("a grouped aggregate with string keys and nulls in the keys spills") {
    checkSpilled(rows.groupBy("s", "n").agg("v" -> "max", "dec" -> "avg"))
    checkSpilled(rows.selectExpr("concat(s, cast(k as string)) as ks", "d", "n")
      .groupBy("ks", "n").agg("d" -> "sum", "*" -> "count"))
  }

  test("keys grouped by dictionary id (a Parquet scan's) spill: the groups start over after each spill") {
    val dir = java.nio.file.Files.createTempDirectory("rowmatch-spill-dictionary").toFile
    try {
      // 251 x 211 key combinations, every one present: about 53K groups per task, dictionary-encoded pages.
      spark.range(0, 400000, 1, 2).selectExpr("concat('s', cast(id % 251 as string), 'é') as a",
        "case when id % 97 = 0 then null else cast(id % 211 as int) end as b", "id as v")
        .write.parquet(new java.io.File(dir, "t").getPath)
      val before = io.rowmatch.spark.aggregate.DictionaryGroups.rowsGrouped()
      checkSpilled(spark.read.parquet(new java.io.File(dir, "t").getPath).groupBy("a", "b")
        .agg("v" -> "sum", "*" -> "count"), grant = "1m")
      assert(io.rowmatch.spark.aggregate.DictionaryGroups.rowsGrouped() > before, "no row was grouped by dictionary id")
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(dir)
    }
  }

  test("count(distinct) spills") {
    checkSpilled(rows.groupBy("k").agg(org.apache.spark.sql.functions.countDistinct("n"),
      org.apache.spark.sql.functions.sum("v")))
  }

  test("distinct and dropDuplicates spill") {
    checkSpilled(rows.select("k", "s").distinct())
    checkSpilled(rows.select("k", "n").dropDuplicates("k").selectExpr("k"))
  }

  test("a grant of 1 MB spills recursively and still merges to vanilla's answer") {
    checkSpilled(rows.groupBy("k").agg("v" -> "sum", "s" -> "max"), grant = "1m")
  }

  test("a task that fails in the middle of spilling leaves no spill file and no Arrow memory; the retry answers") {
    withConf(TestFaults.FAIL_AFTER_BATCHES -> "300", TestFaults.OPERATOR -> "RowmatchHashAggregate") {
      checkSpilled(rows.groupBy("k").agg("v" -> "sum", "s" -> "min"), grant = "1m")
    }
    assert(SpillFile.openFiles() == 0)
  }
}
