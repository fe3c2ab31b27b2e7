package io.rowmatch.spark.joins

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, count, expr, lit, max, min, sum}

import io.rowmatch.spark.arrow.DeferredGatherVector

/**
 * A broadcast join passes its build columns on deferred (row numbers into the shared build side), and the joins,
 * filters and projections above compose those row numbers instead of copying values; the values are gathered
 * where something finally reads them. Answers as vanilla Spark's for chains of broadcast joins over every column
 * type (nulls, NaN, -0.0, multibyte strings, binary): a key read from a deferred column, outer joins padding
 * deferred columns with nulls, filters and computed projections over them, aggregates and a shuffle on top, and
 * shuffled joins above broadcast ones. Each broadcast case also asserts columns were deferred.
 */
class DeferredColumnsSuite extends JoinQueryTest {

  private def table(rows: Int, seed: Long, alias: String, domain: Int): DataFrame =
    JoinData.allTypes(spark, rows, seed, domain = domain).alias(alias)

  private lazy val f = table(2500, 61, "f", 12)
  private lazy val d1 = table(40, 62, "d1", 12)
  private lazy val d2 = table(30, 63, "d2", 7)
  private lazy val d3 = table(25, 64, "d3", 6)

  /** Runs the check and returns how many deferred columns the plugin's run made. */
  private def deferring(st: Strategy, anyStrategy: Boolean = false)(query: => DataFrame): Long = {
    val before = DeferredGatherVector.made()
    checkJoin(st, anyStrategy) { query }
    DeferredGatherVector.made() - before
  }

  private val cases: Seq[(String, () => DataFrame)] = Seq(
    "a chain of inner joins, the third keyed on a column of the first's build side" -> (() =>
      f.join(d1, expr("f.i = d1.i")).join(d2, expr("f.s = d2.s")).join(d3, expr("d1.l = d3.l"))
        .select(col("f.payload"), col("d1.s"), col("d2.dec"), col("d3.ts"), col("d2.bin"), col("d1.d"),
          col("d3.f"), col("d2.big"), col("d1.ntz"), col("d3.bool"))),
    "outer joins padding deferred columns with nulls, a key read from them" -> (() =>
      f.join(d1, expr("f.i = d1.i AND d1.b > 0"), "left_outer").join(d2, expr("d1.s = d2.s"), "left_outer")
        .join(d3, expr("d2.dt = d3.dt"), "left_outer")
        .select(col("f.payload"), col("d1.s"), col("d2.s"), col("d2.dec"), col("d3.bin"), col("d3.d"))),
    "a filter above an outer join over deferred columns, then a join" -> (() =>
      f.join(d1, expr("f.i = d1.i"), "left_outer").where("coalesce(d1.s, f.s) <> 'ab'")
        .join(d2, expr("f.l = d2.l"))
        .select(col("f.payload"), col("d1.s"), col("d1.dt"), col("d2.f"), col("d2.s"))),
    "computed projections and a condition over deferred columns" -> (() =>
      f.join(d1, expr("f.i = d1.i")).join(d2, expr("f.b = d2.b AND d1.d < d2.d + 1"))
        .select(col("f.payload"), expr("concat(d1.s, d2.s) AS ss"), expr("d1.l + d2.l AS ll"),
          expr("d2.dec * 2 AS dec2"))),
    "an aggregate over the chain" -> (() =>
      f.join(d1, expr("f.i = d1.i")).join(d2, expr("f.s = d2.s"))
        .groupBy(col("d1.s"), col("d2.dt")).agg(sum(col("f.dec")), count(lit(1)), min(col("d2.ts")),
          max(col("d1.l")))),
    "semi and anti joins over deferred columns" -> (() =>
      f.join(d1, expr("f.i = d1.i")).join(d2, expr("d1.s = d2.s"), "left_semi")
        .join(d3, expr("d1.dt = d3.dt"), "left_anti").select(col("f.payload"), col("d1.bin"), col("d1.s"))))

  for ((name, query) <- cases) {
    test(s"broadcast: $name") {
      val made = deferring(Broadcast) { query() }
      assert(made > 0, s"no column was deferred\n${planText(lastJoin)}")
    }
    test(s"shuffled hash: $name") {
      deferring(ShuffledHash, anyStrategy = true) { query() }
    }
  }

  test("a broadcast join under a shuffled hash join in one stage: the shuffled join composes its deferred columns") {
    val g = table(1500, 65, "g", 12)
    val before = DeferredGatherVector.gatheredCount()
    val made = deferring(ShuffledHash, anyStrategy = true) {
      // f is partitioned by l already, so the broadcast join's output feeds the shuffled join without an exchange
      f.repartition(8, col("f.l")).join(d1.hint("broadcast"), expr("f.i = d1.i"))
        .join(g.hint("shuffle_hash"), expr("f.l = g.l"))
        .select(col("f.payload"), col("d1.s"), col("g.payload"), col("d1.dec"))
    }
    val text = planText(lastJoin)
    assert(text.contains("BroadcastHashJoin") && text.contains("ShuffledHashJoin"), text)
    assert(made > 0, s"no column was deferred\n$text")
    assert(DeferredGatherVector.gatheredCount() > before, text)
  }
}
