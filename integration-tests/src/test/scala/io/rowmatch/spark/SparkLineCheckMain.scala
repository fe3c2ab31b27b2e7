package io.rowmatch.spark

import org.apache.spark.sql.{Row, SparkSession}

/**
 * The query of the Spark-line check, and a main that runs it in a child JVM whose class path holds a real
 * Rowmatch jar of another Spark line (SparkLineCheckSuite builds that class path). Touches no Rowmatch class:
 * it must run whatever Rowmatch jar is on the class path.
 */
object SparkLineCheckMain {
  val Extensions: Seq[(String, String)] = Seq("spark.sql.extensions" -> "io.rowmatch.spark.RowmatchExtensions",
    "spark.rowmatch.placement.enabled" -> "false", "spark.rowmatch.batchSize" -> "64")

  def withSession[T](settings: Seq[(String, String)])(body: SparkSession => T): T = {
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

  /** A join and an aggregation (Rowmatch replaces both when on), with null keys; its rows and the plan that ran. */
  def query(spark: SparkSession): (Seq[Row], String) = {
    val left = spark.range(0, 2000).selectExpr("if(id % 13 = 0, null, id % 97) as k", "id as v")
    val right = spark.range(0, 500).selectExpr("if(id % 11 = 0, null, id % 50) as k", "id * 2 as w")
    val df = left.join(right, "k").groupBy("k").agg(Map("v" -> "sum", "w" -> "max", "*" -> "count"))
    val rows = df.collect().toSeq.sortBy(r => if (r.isNullAt(0)) Long.MinValue else r.getLong(0))
    (rows, df.queryExecution.executedPlan.treeString)
  }

  /** Prints, a line each: where RowmatchExtensions came from, the vanilla rows, the rows and plan with it. */
  def main(args: Array[String]): Unit = {
    val source = Class.forName("io.rowmatch.spark.RowmatchExtensions").getProtectionDomain.getCodeSource.getLocation
    println(s"EXTENSIONS_FROM $source")
    println(s"SPARK ${org.apache.spark.SPARK_VERSION}")
    val (vanilla, _) = withSession(Nil)(query)
    val (rows, plan) = withSession(Extensions)(query)
    println(s"VANILLA ${vanilla.mkString(";")}")
    println(s"WITH_JAR ${rows.mkString(";")}")
    println(s"PLAN_HAS_ROWMATCH ${plan.contains("Rowmatch")}")
    println("DONE")
  }
}
