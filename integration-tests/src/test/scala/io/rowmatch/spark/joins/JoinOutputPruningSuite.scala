package io.rowmatch.spark.joins

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, count, expr, lit}

import io.rowmatch.spark.join.RowmatchHashJoinExec

/**
 * A join read through a Project outputs only the columns that Project (and the Filters between) read: its keys
 * and condition columns, dropped just above it, are never gathered. Answers as vanilla Spark's (every column type
 * carried, nulls, NaN, -0.0, multibyte strings), per strategy and join type, and the join's output is asserted
 * pruned to exactly the columns read above it.
 */
class JoinOutputPruningSuite extends JoinQueryTest {

  private def numbered(rows: Int, seed: Long, alias: String): DataFrame =
    JoinData.allTypes(spark, rows, seed, domain = 12).withColumn("n", expr("cast(substring(payload, 2) AS int)"))
      .alias(alias)

  private lazy val l = numbered(700, 51, "l")
  private lazy val r = numbered(500, 52, "r")
  private lazy val m = numbered(300, 53, "m")

  /** The output names of the last query's Rowmatch joins, each sorted (pruned or not). */
  private def joinOutputs(): Seq[Seq[String]] = rowmatchJoins(lastJoin).map(_.output.map(_.name).sorted)

  private def pruned(): Seq[RowmatchHashJoinExec] = rowmatchJoins(lastJoin).filter(_.spec.outputColumns != null)

  private val on = "l.i = r.i AND l.n - r.n BETWEEN -200 AND 200"

  for (st <- strategies; jt <- joinTypes) {
    test(s"${st.name}: $jt join outputs only the columns the Project above reads") {
      val existence = jt == "left_semi" || jt == "left_anti"
      checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
        val joined = l.join(r, expr(on), jt)
        if (existence) joined.select(col("l.s"), col("l.payload"), expr("l.dec * 2 AS twice"))
        else joined.select(col("l.s"), col("r.d"), col("l.payload"), expr("l.dec + r.dec AS sum"), col("r.bin"))
      }
      val expected = if (existence) Seq("dec", "payload", "s") else Seq("bin", "d", "dec", "dec", "payload", "s")
      assert(joinOutputs() == Seq(expected), s"join outputs ${joinOutputs()}\n${planText(lastJoin)}")
    }
  }

  for (st <- strategies) {
    test(s"${st.name}: a chain of joins, each pruned to what the rest of the plan reads") {
      checkJoin(st) {
        l.join(r, expr(on), "inner").join(m, expr("r.s = m.s AND l.b = m.b"), "inner")
          .select(col("l.payload"), col("m.ts"), expr("r.f + m.f AS f2"))
      }
      val joins = rowmatchJoins(lastJoin)
      assert(joins.size == 2 && pruned().size == 2, s"${joinOutputs()}\n${planText(lastJoin)}")
      // The top join's output is exactly what the final Project reads.
      assert(joinOutputs().contains(Seq("f", "f", "payload", "ts")), s"${joinOutputs()}\n${planText(lastJoin)}")
    }

    test(s"${st.name}: a Filter Spark keeps above an outer join adds the columns it reads") {
      checkJoin(st, anyStrategy = st == Broadcast) {
        l.join(r, expr(on), "left_outer").where("coalesce(r.s, l.s) <> 'ab'").select(col("l.payload"), col("r.l"))
      }
      assert(joinOutputs() == Seq(Seq("l", "payload", "s", "s")), s"${joinOutputs()}\n${planText(lastJoin)}")
    }

    test(s"${st.name}: a count over a join keeps one column for its rows") {
      val rows = checkJoin(st) { l.join(r, expr(on), "inner").agg(count(lit(1)).as("c")) }
      assert(rows.head.getLong(0) > 1000, rows)
      assert(joinOutputs().map(_.size) == Seq(1), s"${joinOutputs()}\n${planText(lastJoin)}")
    }
  }
}
