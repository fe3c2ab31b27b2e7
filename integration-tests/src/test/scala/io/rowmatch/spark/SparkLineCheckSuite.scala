package io.rowmatch.spark

import org.apache.spark.sql.{Row, SparkSession}
import org.scalatest.funsuite.AnyFunSuite

/**
 * A Rowmatch jar on a Spark of another line (a 4.1 jar on Spark 4.2, or the reverse): the driver's setup check
 * turns Rowmatch off for the session with one ERROR naming both versions and the jar to use, and every query runs
 * as vanilla Spark, right. The jar here is this build's own, told by the test-only setting
 * spark.rowmatch.test.builtForSparkLine that it was built for the other line.
 */
class SparkLineCheckSuite extends AnyFunSuite {
  private val build = RowmatchBuild.current()
  private val running = org.apache.spark.SPARK_VERSION
  private val otherLine = if (build.sparkLine == "4.1") "4.2" else "4.1"

  private def withSession[T](settings: (String, String)*)(body: SparkSession => T): T = {
    val builder = SparkSession.builder().master("local[2]").appName("spark-line-check")
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
      .config("spark.sql.autoBroadcastJoinThreshold", "-1")
    settings.foreach { case (k, v) => builder.config(k, v) }
    val spark = builder.getOrCreate()
    try body(spark)
    finally {
      spark.stop()
      SparkSession.clearActiveSession()
      SparkSession.clearDefaultSession()
    }
  }

  private val rowmatch = Seq("spark.sql.extensions" -> "io.rowmatch.spark.RowmatchExtensions",
    "spark.rowmatch.placement.enabled" -> "false", "spark.rowmatch.batchSize" -> "64")

  /** A join and an aggregation (Rowmatch replaces both when on), with null keys; its rows and the plan that ran. */
  private def query(spark: SparkSession): (Seq[Row], String) = {
    val left = spark.range(0, 2000).selectExpr("if(id % 13 = 0, null, id % 97) as k", "id as v")
    val right = spark.range(0, 500).selectExpr("if(id % 11 = 0, null, id % 50) as k", "id * 2 as w")
    val df = left.join(right, "k").groupBy("k").agg(Map("v" -> "sum", "w" -> "max", "*" -> "count"))
    val rows = df.collect().toSeq.sortBy(_.getLong(0))
    (rows, df.queryExecution.executedPlan.treeString)
  }

  private def checkErrors(logs: Seq[String]): Seq[String] =
    logs.filter(l => l.startsWith("ERROR") && l.contains("RowmatchSetupCheck"))

  test("a jar of another Spark line: one ERROR naming both versions and the jar to use; no Rowmatch; vanilla rows") {
    val (vanilla, vanillaPlan) = withSession()(query)
    assert(!vanillaPlan.contains("Rowmatch"), vanillaPlan)
    assert(vanilla.nonEmpty)

    // Control: the same query with this jar on its own line runs Rowmatch operators, with the same rows.
    val ((own, ownPlan), ownLogs) = LogCapture {
      withSession(rowmatch :+ ("spark.rowmatch.test.builtForSparkLine" -> build.sparkLine): _*)(query)
    }
    assert(ownPlan.contains("Rowmatch"), ownPlan)
    assert(own == vanilla)
    assert(checkErrors(ownLogs).isEmpty, ownLogs.mkString("\n"))

    val ((other, otherPlan), logs) = LogCapture {
      withSession(rowmatch :+ ("spark.rowmatch.test.builtForSparkLine" -> otherLine): _*)(query)
    }
    assert(!otherPlan.contains("Rowmatch"), otherPlan)
    assert(other == vanilla)
    val errors = checkErrors(logs)
    assert(errors.size == 1, s"want exactly one ERROR from the setup check:\n${logs.mkString("\n")}")
    val e = errors.head
    assert(e.contains(s"built for Spark $otherLine (rowmatch-spark-plugin-spark${otherLine}_2.13-"), e)
    assert(e.contains(s"the application runs Spark $running"), e)
    assert(e.contains("Rowmatch is OFF for this session"), e)
    assert(e.contains(s"Use ${build.shadedJarName()} (built with -Pspark-${build.sparkLine})"), e)
  }
}
