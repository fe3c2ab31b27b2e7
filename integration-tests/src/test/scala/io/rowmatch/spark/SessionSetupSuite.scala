package io.rowmatch.spark

import org.apache.spark.sql.SparkSession
import org.scalatest.funsuite.AnyFunSuite

/**
 * What a user sees at session start when spark.sql.extensions names a Rowmatch class that is not the entry
 * point (a typo). Spark 4.1 only logs "Cannot use <class> to configure session extensions" (a WARN) and goes
 * on as vanilla Spark; Rowmatch's setup check (RowmatchSetupCheck, found by Spark's ServiceLoader because the
 * jar is on the class path) adds an ERROR that says Rowmatch is off and names the right class.
 */
class SessionSetupSuite extends AnyFunSuite {
  test("a misspelled extension class: an ERROR at session start names the right one; queries run vanilla") {
    val typo = "io.rowmatch.spark.RowmatchExtension"
    val (plan, logs) = LogCapture {
      val spark = SparkSession.builder().master("local[2]").appName("typo")
        .config("spark.sql.extensions", typo)
        .config("spark.ui.enabled", "false")
        .getOrCreate()
      try {
        val df = spark.range(0, 1000).selectExpr("id % 7 as k").groupBy("k").count()
        assert(df.collect().length == 7)
        df.queryExecution.executedPlan.treeString
      } finally {
        spark.stop()
        SparkSession.clearActiveSession()
        SparkSession.clearDefaultSession()
      }
    }
    assert(!plan.contains("Rowmatch"), plan)
    assert(logs.exists(l => l.startsWith("WARN") && l.contains(s"Cannot use $typo to configure session extensions")),
      s"Spark's own warning is gone:\n${logs.mkString("\n")}")
    val ours = logs.filter(_.contains("RowmatchSetupCheck"))
    assert(ours.exists(l => l.startsWith("ERROR") && l.contains(s"'$typo'") && l.contains("Rowmatch is OFF") &&
      l.contains("spark.sql.extensions=io.rowmatch.spark.RowmatchExtensions")), logs.mkString("\n"))
  }

  test("the right extension class in local mode: the setup check says nothing") {
    val (_, logs) = LogCapture {
      val spark = SparkSession.builder().master("local[2]").appName("right")
        .config("spark.sql.extensions", "io.rowmatch.spark.RowmatchExtensions")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
      try assert(spark.range(0, 10).selectExpr("id % 2 as k").groupBy("k").count().collect().length == 2)
      finally {
        spark.stop()
        SparkSession.clearActiveSession()
        SparkSession.clearDefaultSession()
      }
    }
    assert(!logs.exists(_.contains("RowmatchSetupCheck")), logs.mkString("\n"))
  }
}
