package io.rowmatch.spark.joins

import org.apache.spark.sql.{DataFrame, Row}

import io.rowmatch.spark.{RowComparison, RowmatchQueryTest}
import io.rowmatch.spark.join.RowmatchHashJoinExec

/**
 * Differential checks of Rowmatch joins against vanilla Spark: each query runs with the plugin off and on
 * under the same join strategy; results must be equal (as multisets, floats compared bit for bit, -0.0 and
 * NaN payloads included: a join copies values as they are), the plan that ran (AQE's final plan) must hold
 * RowmatchHashJoin replacing the expected Spark join, and after every test no Arrow memory may be held
 * (RowmatchQueryTest.assertNoArrowMemoryHeld).
 */
trait JoinQueryTest extends RowmatchQueryTest {

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    // Keep joins with an empty side as joins: the empty-side cases are part of what we test.
    spark.conf.set("spark.sql.adaptive.optimizer.excludedRules",
      "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation")
    spark.conf.set("spark.sql.optimizer.excludedRules",
      "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation," +
        "org.apache.spark.sql.catalyst.optimizer.PropagateEmptyRelation")
  }

  /** How Spark is pushed to plan an equi-join, with the Spark node we then expect to have replaced. */
  sealed abstract class Strategy(val name: String, val replaces: String, val conf: Seq[(String, String)])

  case object Broadcast extends Strategy("broadcast", "BroadcastHashJoin", Seq(
    "spark.sql.autoBroadcastJoinThreshold" -> "10MB",
    "spark.sql.join.preferSortMergeJoin" -> "true"))

  // Spark 4.1 has no forceApplyShuffledHashJoin any more: AQE re-plans the sort-merge join as a shuffled hash
  // join once the shuffle sizes show every partition fits this local map threshold.
  case object ShuffledHash extends Strategy("shuffled hash", "ShuffledHashJoin", Seq(
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.join.preferSortMergeJoin" -> "false",
    "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold" -> "1g"))

  case object SortMerge extends Strategy("sort-merge", "SortMergeJoin", Seq(
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.join.preferSortMergeJoin" -> "true"))

  val strategies: Seq[Strategy] = Seq(Broadcast, ShuffledHash, SortMerge)

  val joinTypes: Seq[String] = Seq("inner", "left_outer", "right_outer", "full_outer", "left_semi", "left_anti")

  /** The plugin's DataFrame of the last checkJoin (its plan ran: its metrics are set). */
  protected var lastJoin: DataFrame = _

  protected def rowmatchJoins(df: DataFrame): Seq[RowmatchHashJoinExec] =
    executedNodes(df).collect { case j: RowmatchHashJoinExec => j }

  /**
   * Runs `query` under `strategy` with the plugin off and on; results must be equal and the plan must hold
   * a RowmatchHashJoin replacing `strategy.replaces` (any Spark join when `anyStrategy`, for join types
   * Spark cannot plan that way, e.g. a broadcast full outer join). Returns the rows.
   */
  protected def checkJoin(strategy: Strategy, anyStrategy: Boolean = false, extraConf: Seq[(String, String)] = Nil)
      (query: => DataFrame): Seq[Row] = {
    withConf(strategy.conf ++ extraConf: _*) {
      val expected = withConf("spark.rowmatch.enabled" -> "false") {
        val df = query
        val rows = df.collect().toSeq
        assert(rowmatchJoins(df).isEmpty, "plugin disabled but a Rowmatch join ran")
        rows
      }
      val df = query
      val actual = df.collect().toSeq
      lastJoin = df
      val joins = rowmatchJoins(df)
      val text = planText(df)
      assert(joins.nonEmpty, s"no RowmatchHashJoin in\n$text")
      if (!anyStrategy) {
        assert(joins.exists(_.replaced == strategy.replaces),
          s"expected a RowmatchHashJoin replacing ${strategy.replaces} in\n$text")
      }
      assertSameRows(expected, actual, text)
      actual
    }
  }

  protected def assertSameRows(expected: Seq[Row], actual: Seq[Row], context: String): Unit =
    RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 0.0, context, bitExact = true)
}
