package io.rowmatch.spark.memory

import scala.util.control.NonFatal

import org.apache.spark.sql.{DataFrame, Row, SparkSession}

import io.rowmatch.spark.RowComparison
import io.rowmatch.spark.join.BroadcastJoinTables

/**
 * The child JVM of DirectMemorySuite, started with a small -XX:MaxDirectMemorySize: Spark on local[4] (four
 * concurrent tasks) runs joins and aggregations whose Arrow state wants more direct memory than the JVM has.
 * Each query runs with Rowmatch off (the expected answer) and on; prints one line per query:
 * `RESULT <name> same` (Rowmatch answered right, by spilling), `RESULT <name> failed <message>` (its task
 * failed with an error, never a fatal one: the JVM and the session live on), or `RESULT <name> differ`. Then
 * a query after them, the allocators' state, and `DONE`. An OutOfMemoryError reaching an executor thread
 * would end the JVM (Spark's uncaught-exception handler exits), so a missing `DONE` is the failure.
 */
object DirectMemoryMain {
  def main(args: Array[String]): Unit = {
    val spark = SparkSession.builder()
      .master("local[4]")
      .appName("DirectMemoryMain")
      .config("spark.sql.extensions", "io.rowmatch.spark.RowmatchExtensions")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.autoBroadcastJoinThreshold", "-1")
      .config("spark.sql.adaptive.enabled", "false") // four tasks of equal size, all at once
      .config("spark.task.maxFailures", "1")
      .getOrCreate()
    val rows = args.headOption.map(_.toLong).getOrElse(2000000L)

    def side(seed: Int, name: String): DataFrame = spark.range(0, rows, 1, 4).selectExpr(
      s"(id * $seed) % ${rows / 2} as k", s"id as ${name}v",
      s"concat('$name-', repeat('é', 8), cast(id * $seed as string)) as ${name}s")

    val queries: Seq[(String, () => DataFrame)] = Seq(
      "join" -> (() => {
        val l = side(7, "l")
        val r = side(3, "r")
        l.join(r, Seq("k"), "full_outer")
          .selectExpr("k % 1000 as g", "lv", "length(rs) as n").groupBy("g").sum("lv", "n")
      }),
      "aggregate" -> (() => side(5, "a").groupBy("av").agg(
        org.apache.spark.sql.functions.max("as"), org.apache.spark.sql.functions.count("k"))
        .selectExpr("av % 1000 as g", "`max(as)` as m").groupBy("g").agg(
          org.apache.spark.sql.functions.max("m"), org.apache.spark.sql.functions.count("m"))),
      "distinct" -> (() => side(11, "d").select("ds").distinct().selectExpr("length(ds) as n")
        .groupBy("n").count()))

    def collect(df: DataFrame): Seq[Row] = df.collect().toSeq
    for ((name, q) <- queries) {
      spark.conf.set("spark.rowmatch.enabled", "false")
      val expected = collect(q())
      spark.conf.set("spark.rowmatch.enabled", "true")
      val outcome =
        try {
          val actual = collect(q())
          try {
            RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 0.0, name, bitExact = true)
            "same"
          } catch {
            case e: Throwable if NonFatal(e) => "differ " + e.getMessage.take(300).replace('\n', ' ')
          }
        } catch {
          case NonFatal(e) => "failed " + causes(e).replace('\n', ' ')
        }
      println(s"RESULT $name $outcome")
      System.out.flush()
    }
    val after = collect(spark.range(0, 1000, 1, 4).selectExpr("id % 7 as g").groupBy("g").count())
    println(s"AFTER ${after.map(_.getLong(1)).sum}")
    val deadline = System.nanoTime() + 20L * 1000 * 1000 * 1000
    while (TaskArrowMemory.openAllocators() > 0 && System.nanoTime() < deadline) Thread.sleep(20)
    BroadcastJoinTables.closeIdleNow()
    println(s"ALLOCATORS ${TaskArrowMemory.openAllocators()} ROOT ${TaskArrowMemory.rootAllocatedBytes()} " +
      s"SPILLFILES ${SpillFile.openFiles()}")
    spark.stop()
    println("DONE")
    System.out.flush()
  }

  private def causes(e: Throwable): String =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(6)
      .map(t => t.getClass.getName + ": " + String.valueOf(t.getMessage).take(400)).mkString(" <- ")
}
