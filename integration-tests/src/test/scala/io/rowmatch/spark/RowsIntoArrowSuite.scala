package io.rowmatch.spark

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, count, expr, lit, max, min, sum}

import io.rowmatch.spark.arrow.ArrowRowSink
import io.rowmatch.spark.joins.JoinData

/**
 * Rows of a Spark code-generated stage read by a Rowmatch operator are written into Arrow by the stage itself
 * (ArrowRowSink at the end of the generated loop) instead of being buffered, copied and converted after it.
 * Vanilla joins (the plugin's joins off) make several rows per input row, so batches fill in the middle of one
 * input row's pairs: the rows beyond a batch start the next one. Answers as vanilla's at batch boundaries
 * (batches of 64 rows: outputs of 0, 1, 63, 64, 65, 128, 129 rows and fan-outs of hundreds of rows per key), over
 * every column type, under a limit, and when Spark falls back from its generated code; each asserts the
 * sink ran (or, with whole-stage codegen off, that it did not).
 */
class RowsIntoArrowSuite extends RowmatchQueryTest {

  private val vanillaJoins = "spark.rowmatch.join.enabled" -> "false"

  /** Runs the comparison with vanilla joins and returns how many sinks the plugin's run opened. */
  private def sinks(conf: (String, String)*)(query: => DataFrame): Long = withConf(vanillaJoins +: conf: _*) {
    val before = ArrowRowSink.opened()
    checkAnswerAndOperators(query, mustRun = Seq("RowmatchToArrow"))
    ArrowRowSink.opened() - before
  }

  /** `n` rows (k, v) from a range (not a local relation the optimizer would fold): k = v % `mod`. */
  private def keys(name: String, n: Int, mod: Int): DataFrame =
    spark.range(n).selectExpr(s"cast(id % $mod as int) AS ${name}k", s"cast(id as int) AS ${name}v")

  // Every distinct row with its count: a row lost or written twice changes the answer.
  private def everyRow(df: DataFrame): DataFrame = df.groupBy(df.columns.map(col): _*).agg(count(lit(1)))

  for (n <- Seq(0, 1, 63, 64, 65, 128, 129)) {
    test(s"a vanilla join of $n rows into Arrow batches of 64") {
      // No output at all: keys that match nothing (an empty side would be planned away).
      val a = if (n == 0) keys("a", 50, 1000).selectExpr("ak + 5000 AS ak", "av") else keys("a", n, 1000)
      val b = keys("b", 200, 1000)
      val joined = a.join(b, expr("ak = bk")).select("ak", "av", "bv")
      // With no rows, AQE would plan a grouped aggregate away; a global one still runs.
      val opened = sinks() { if (n == 0) joined.groupBy().agg(count(lit(1)), sum("av")) else everyRow(joined) }
      assert(opened > 0, "no stage wrote into Arrow")
    }
  }

  for (fanOut <- Seq(63, 64, 65, 500)) {
    test(s"a key with $fanOut matches per row: batches fill in the middle of one row's pairs") {
      val a = keys("a", 7, 3)
      val b = keys("b", 3 * fanOut, 3)
      val opened = withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
        sinks() { everyRow(a.join(b, expr("ak = bk")).select(col("av"), col("bv"), expr("av * 1000 + bv"))) }
      }
      assert(opened > 0, "no stage wrote into Arrow")
    }
  }

  test("a sort-merge join with a condition and an outer join over every column type, aggregated") {
    val f = JoinData.allTypes(spark, 900, 71, domain = 5).alias("f")
    val d = JoinData.allTypes(spark, 300, 72, domain = 5).alias("d")
    val opened = withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      sinks() {
        f.join(d, expr("f.i = d.i AND f.payload < d.payload"), "left_outer")
          .groupBy(col("f.s"), col("d.dt"), col("d.bool"))
          .agg(sum(col("f.dec")), sum(col("d.big")), count(lit(1)), min(col("d.ts")), max(col("d.ntz")),
            min(col("d.d")), max(col("f.f")), min(col("d.bin")), max(col("d.s")), sum(col("d.l")), max(col("d.sh")))
      }
    }
    assert(opened > 0, "no stage wrote into Arrow")
  }

  test("every column of every type passes through as it was (broadcast join, then an Arrow shuffle)") {
    val f = JoinData.allTypes(spark, 700, 73, domain = 6).alias("f")
    val d = JoinData.allTypes(spark, 40, 74, domain = 6).alias("d")
    val opened = sinks() {
      everyRow(f.join(d.hint("broadcast"), expr("f.l = d.l")).select(col("f.payload"), col("d.b"), col("d.sh"),
        col("d.i"), col("d.l"), col("d.f"), col("d.d"), col("d.dec"), col("d.big"), col("d.s"), col("d.bin"),
        col("d.bool"), col("d.dt"), col("d.ts"), col("d.ntz")))
    }
    assert(opened > 0, "no stage wrote into Arrow")
  }

  test("nested columns: rows written whole, a batch filling in the middle of one row's pairs, into a Rowmatch join") {
    val a = keys("a", 7, 3).selectExpr("ak", "av", "named_struct('x', av, 'y', cast(av AS string)) AS st")
    val b = keys("b", 1500, 3).selectExpr("bk", "bv", "array(bv, bv + 1) AS arr", "map(bv, 'v') AS m")
    val c = keys("c", 40, 1000)
    val before = ArrowRowSink.opened()
    withConf("spark.rowmatch.join.replaceSortMergeJoin" -> "false", "spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      checkAnswerAndOperators(
        a.join(b.hint("merge"), expr("ak = bk")).join(c.hint("broadcast"), expr("bv = cv"))
          .select("av", "st", "bv", "arr", "m", "cv"),
        mustRun = Seq("RowmatchToArrow", "RowmatchHashJoin"))
    }
    assert(ArrowRowSink.opened() > before, "no stage wrote into Arrow")
  }

  test("a limit inside the stage") {
    val a = keys("a", 300, 5)
    val b = keys("b", 400, 5)
    val opened = sinks() { a.join(b, expr("ak = bk")).limit(150).groupBy().agg(count(lit(1))) }
    assert(opened > 0, "no stage wrote into Arrow")
  }

  test("Spark's fallback from a generated stage too large to compile well: the same batches from rows") {
    val a = keys("a", 300, 5)
    val b = keys("b", 80, 5)
    sinks("spark.sql.codegen.hugeMethodLimit" -> "1") {
      everyRow(a.join(b, expr("ak = bk")).select("av", "bv"))
    }
  }

  test("whole-stage codegen off: rows are converted after the stage, as before") {
    val a = keys("a", 300, 5)
    val b = keys("b", 80, 5)
    val opened = sinks("spark.sql.codegen.wholeStage" -> "false") {
      everyRow(a.join(b, expr("ak = bk")).select("av", "bv"))
    }
    assert(opened == 0, s"$opened sinks opened without whole-stage codegen")
  }
}
