package io.rowmatch.tpch

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.optimizer.BuildSide
import org.apache.spark.sql.execution.{ExecSubqueryExpression, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec, ShuffleQueryStageExec}
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, BroadcastNestedLoopJoinExec, CartesianProductExec, ShuffledHashJoinExec, SortMergeJoinExec}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import io.rowmatch.bench.tpch.{Engine, TpchQuery}
import io.rowmatch.spark.join.RowmatchHashJoinExec
import io.rowmatch.spark.shuffle.RowmatchShuffleExchangeExec

/**
 * AQE decides broadcasts on the statistics of the query stages below a join. Rowmatch's exchanges must
 * report what vanilla's would for the same rows, so that every TPC-H query, re-planned at runtime, broadcasts
 * the same join sides with the plugin as without it. The broadcast threshold is scaled with the data
 * (10 MB at SF 1 is 100 KB at SF 0.01), so it falls between the sides as it does at SF 1; the suite also
 * checks it does split them (some joins broadcast, some shuffled), or it would prove nothing.
 *
 * AQE re-plans when a stage finishes, so which side of a join it broadcasts can also depend on which side's
 * stage finished first (the other has only the optimizer's estimate), and Rowmatch changes how long stages take.
 * The statistics themselves do not depend on timing: each query also checks that every shuffle stage both plans
 * hold reports the same size and row count with the plugin as without it, and a join broadcast by both on the same
 * keys whose build side still differs after three attempts is counted as timing (at most two in the suite).
 */
class TpchBroadcastChoiceSuite extends AnyFunSuite with BeforeAndAfterAll {
  private var spark: SparkSession = _
  private var broadcastJoins = 0
  private var shuffledJoins = 0
  private var rowmatchJoins = 0
  private var comparedStages = 0
  private var comparedArrowStages = 0
  /** Queries where a join broadcast the other side than vanilla's after every attempt (see the test). */
  private val timingFlips = scala.collection.mutable.ArrayBuffer.empty[String]

  override def beforeAll(): Unit = {
    super.beforeAll()
    spark = TpchSuiteBase.session(Engine.ROWMATCH)
    TpchTestData.dataset(spark).registerViews(spark)
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", (100L * 1024).toString)
  }

  override def afterAll(): Unit = {
    try {
      if (spark != null) {
        spark.stop()
        SparkSession.clearActiveSession()
        SparkSession.clearDefaultSession()
      }
    } finally {
      super.afterAll()
    }
  }

  /** How a join ran: broadcast (and which side) or shuffled, with its keys by name (no expression ids). */
  private def describe(p: SparkPlan): Option[String] = {
    def keys(l: Seq[org.apache.spark.sql.catalyst.expressions.Expression],
        r: Seq[org.apache.spark.sql.catalyst.expressions.Expression]) =
      l.map(_.sql).mkString(",") + "=" + r.map(_.sql).mkString(",")
    def side(b: BuildSide) = b.toString.stripSuffix("$")
    p match {
      case j: BroadcastHashJoinExec => Some(s"broadcast ${side(j.buildSide)} ${keys(j.leftKeys, j.rightKeys)}")
      case j: ShuffledHashJoinExec => Some(s"shuffled ${keys(j.leftKeys, j.rightKeys)}")
      case j: SortMergeJoinExec => Some(s"shuffled ${keys(j.leftKeys, j.rightKeys)}")
      case j: RowmatchHashJoinExec if j.broadcast =>
        Some(s"broadcast ${side(j.buildSide)} ${keys(j.leftKeys, j.rightKeys)}")
      case j: RowmatchHashJoinExec => Some(s"shuffled ${keys(j.leftKeys, j.rightKeys)}")
      case j: BroadcastNestedLoopJoinExec => Some(s"broadcast-nested-loop ${side(j.buildSide)}")
      case _: CartesianProductExec => Some("cartesian")
      case _ => None
    }
  }

  /** Every node of the final plan (AQE's stages and subqueries included), in plan order. */
  private def nodes(plan: SparkPlan): Seq[SparkPlan] = {
    val subqueries = plan.expressions.flatMap(_.collect { case s: ExecSubqueryExpression => s.plan })
    val below = plan match {
      case a: AdaptiveSparkPlanExec => nodes(a.finalPhysicalPlan)
      case s: QueryStageExec => nodes(s.plan)
      case _: ReusedExchangeExec => Nil // its plan is listed where it first ran
      case other => other.children.flatMap(nodes)
    }
    plan +: (below ++ subqueries.flatMap(nodes))
  }

  /** Every join of the final plan, in plan order. */
  private def joins(plan: SparkPlan): Seq[SparkPlan] = nodes(plan).filter(describe(_).isDefined)

  /**
   * What AQE read off each shuffle stage of the final plan (size, row count), by what the stage shuffles (its
   * partitioning and columns, by name), and whether the stage is an Arrow shuffle.
   */
  private def shuffleStats(plan: SparkPlan): Map[String, Seq[((BigInt, Option[BigInt]), Boolean)]] =
    nodes(plan).collect {
      case s: ShuffleQueryStageExec if !s.plan.isInstanceOf[ReusedExchangeExec] =>
        val partitioning = s.shuffle.outputPartitioning match {
          case e: Expression => e.sql // hash and range partitionings, by column name
          case other => other.toString
        }
        val stats = s.getRuntimeStatistics
        (s"$partitioning [${s.output.map(_.name).mkString(", ")}]",
          ((stats.sizeInBytes, stats.rowCount), s.shuffle.isInstanceOf[RowmatchShuffleExchangeExec]))
    }.groupMap(_._1)(_._2)

  private def run(query: TpchQuery, rowmatch: Boolean): SparkPlan = {
    spark.conf.set("spark.rowmatch.enabled", rowmatch.toString)
    val statements = query.statements()
    for (i <- 0 until statements.size() - 1) spark.sql(statements.get(i)).collect()
    val frame = spark.sql(query.answerStatement())
    frame.collect()
    frame.queryExecution.executedPlan
  }

  for (number <- 1 to TpchQuery.COUNT) {
    test(s"q$number broadcasts the same join sides with the plugin as without it") {
      val query = TpchQuery.load(number)
      // AQE re-plans as stages finish, so a join whose sides finish close together can be planned either way
      // in either engine (seen on q2). A size that differs, as q8's did, differs on every attempt.
      def attempt(): (SparkPlan, SparkPlan) = (run(query, rowmatch = false), run(query, rowmatch = true))
      var (vanillaPlan, rowmatchPlan) = attempt()
      def vanilla = joins(vanillaPlan).flatMap(describe)
      def rowmatch = joins(rowmatchPlan)
      var attempts = 1
      while (rowmatch.flatMap(describe) != vanilla && attempts < 3) {
        val next = attempt()
        vanillaPlan = next._1
        rowmatchPlan = next._2
        attempts += 1
      }
      val withPlugin = rowmatch.flatMap(describe)
      // After three attempts, a join broadcast by both engines on the same keys may still differ in its build side
      // when the plugin's stages finish in another order than vanilla's (its broadcasts got faster): AQE broadcast
      // the side whose stage finished first. That is timing, not statistics, as long as every shuffle stage reports
      // the same size and rows (checked below); it is counted, and the suite allows at most two. Any other
      // difference (a side broadcast by one engine and shuffled by the other) fails here.
      def sideFree(join: String) = join.replace(" BuildLeft ", " ").replace(" BuildRight ", " ")
      val differing = withPlugin.zip(vanilla).filter { case (r, v) => r != v }
      assert(withPlugin.size == vanilla.size &&
        differing.forall { case (r, v) => r.startsWith("broadcast ") && sideFree(r) == sideFree(v) },
        s"q$number joins:\n  vanilla:  ${vanilla.mkString("; ")}\n  rowmatch: ${withPlugin.mkString("; ")}")
      val flips = differing.size
      if (flips > 0) {
        timingFlips += s"q$number: $flips"
      }
      // The same rows shuffled must be reported alike, whichever stage finished first.
      val vanillaStats = shuffleStats(vanillaPlan)
      for ((stage, stats) <- shuffleStats(rowmatchPlan); expected <- vanillaStats.get(stage)) {
        assert(stats.map(_._1).sorted == expected.map(_._1).sorted,
          s"q$number shuffle stage $stage (size, rows): vanilla ${expected.map(_._1)}, rowmatch ${stats.map(_._1)}")
        comparedStages += stats.size
        comparedArrowStages += stats.count(_._2)
      }
      broadcastJoins += vanilla.count(_.startsWith("broadcast "))
      shuffledJoins += vanilla.count(_.startsWith("shuffled "))
      val replaced = rowmatch.count(_.isInstanceOf[RowmatchHashJoinExec])
      assert(vanilla.isEmpty || replaced > 0, s"q$number: no Rowmatch join ran: ${withPlugin.mkString("; ")}")
      rowmatchJoins += replaced
    }
  }

  test("the scaled threshold splits the join sides, and Rowmatch ran the joins") {
    assert(broadcastJoins > 5 && shuffledJoins > 5, s"broadcast $broadcastJoins, shuffled $shuffledJoins")
    assert(rowmatchJoins >= (broadcastJoins + shuffledJoins) / 2, s"$rowmatchJoins Rowmatch joins")
    assert(comparedStages > 50 && comparedArrowStages > comparedStages / 2,
      s"statistics compared on $comparedStages shuffle stages, $comparedArrowStages of them Arrow shuffles")
    assert(timingFlips.size <= 2, s"build sides chosen otherwise than vanilla's in ${timingFlips.mkString(", ")}")
  }
}
