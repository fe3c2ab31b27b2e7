package io.rowmatch.spark

import java.nio.file.Files

import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec
import org.apache.spark.sql.execution.{ReusedSubqueryExec, SparkPlan, SubqueryBroadcastExec, SubqueryExec}
import org.apache.spark.sql.{DataFrame, Row}

import io.rowmatch.bench.tpch.TpchQuery
import io.rowmatch.tpch.{JoinStrategy, TpchTestData}

/**
 * Exchange and subquery reuse with the plugin on must be exactly vanilla Spark's. Spark matches subtrees
 * by `plan.canonicalized` (ReuseExchangeAndSubquery without AQE; AQE's stage cache and
 * ReuseAdaptiveSubquery with it), so Rowmatch nodes must canonicalize like Spark's: two equal subtrees
 * equal, two subtrees that compute different answers different. Each query runs with AQE off and on; the
 * reuse counts of the plan that ran (AQE's final plan, query stages and subquery plans included) must be
 * those of vanilla Spark, the answers equal, and Rowmatch operators must have run.
 */
class ReuseSuite extends RowmatchQueryTest with AdaptiveSparkPlanHelper {

  /** What reuse happened in a plan that ran. */
  final case class Reuse(subqueries: Int, subqueryBroadcasts: Int, reusedSubqueries: Int, reusedExchanges: Int) {
    override def toString: String = s"SubqueryExec=$subqueries, SubqueryBroadcastExec=$subqueryBroadcasts, " +
      s"ReusedSubqueryExec=$reusedSubqueries, ReusedExchangeExec=$reusedExchanges"
  }

  private def reuseOf(plan: SparkPlan): Reuse = Reuse(
    collectWithSubqueries(plan) { case s: SubqueryExec => s }.size,
    collectWithSubqueries(plan) { case s: SubqueryBroadcastExec => s }.size,
    collectWithSubqueries(plan) { case s: ReusedSubqueryExec => s }.size,
    collectWithSubqueries(plan) { case e: ReusedExchangeExec => e }.size)

  private def rowmatchOperators(plan: SparkPlan): Int =
    collectWithSubqueries(plan) { case p if p.nodeName.startsWith("Rowmatch") => p }.size

  private val aqeModes = Seq("AQE off" -> "false", "AQE on" -> "true")

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    // SubquerySuite's testData: key 1..100, value its string.
    spark.range(1, 101).selectExpr("id AS key", "CAST(id AS STRING) AS value").createOrReplaceTempView("testData")
    spark.range(20000).selectExpr("id % 500 AS k", "id AS v", "id % 7 AS w").createOrReplaceTempView("big")
    spark.range(3000).selectExpr("id % 300 AS k", "id AS v").createOrReplaceTempView("small")
  }

  /**
   * Runs `sql` with the plugin off and on under AQE off and on (and `confs`), checks the answers are
   * equal, Rowmatch operators ran, and the reuse counts are vanilla's. Returns vanilla's counts per mode.
   */
  private def checkReuse(sql: => String, confs: (String, String)*): Map[String, Reuse] =
    aqeModes.map { case (mode, aqe) =>
      withClue(s"[$mode] ") {
        withConf((confs :+ ("spark.sql.adaptive.enabled" -> aqe)): _*) {
          def run(on: Boolean): (Seq[Row], SparkPlan) = withConf("spark.rowmatch.enabled" -> on.toString) {
            val df = spark.sql(sql)
            val rows = df.collect().toSeq
            (rows, df.queryExecution.executedPlan)
          }
          val (expected, vanillaPlan) = run(on = false)
          val (actual, plan) = run(on = true)
          val vanilla = reuseOf(vanillaPlan)
          val rowmatch = reuseOf(plan)
          val context = s"vanilla plan:\n${vanillaPlan.treeString}\nrowmatch plan:\n${plan.treeString}"
          info(s"$mode: vanilla $vanilla; rowmatch $rowmatch")
          assert(rowmatchOperators(vanillaPlan) == 0, "plugin disabled but a Rowmatch operator ran")
          assert(rowmatchOperators(plan) > 0, s"no Rowmatch operator ran\n$context")
          assert(rowmatch == vanilla, s"reuse differs: vanilla $vanilla, rowmatch $rowmatch\n$context")
          RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 1e-9, context)
          mode -> vanilla
        }
      }
    }.toMap

  private val NoBroadcast = "spark.sql.autoBroadcastJoinThreshold" -> "-1"

  test("the same scalar subquery twice is planned once and reused (SPARK-27279)") {
    val counts = checkReuse(
      """SELECT key, (SELECT max(key) FROM testData) AS m FROM testData
        |WHERE key > (SELECT max(key) FROM testData) - 10""".stripMargin)
    counts.values.foreach(c => assert(c.reusedSubqueries >= 1, s"vanilla was expected to reuse: $c"))
  }

  test("merged non-correlated scalar subqueries: one SubqueryExec, two reused") {
    val counts = checkReuse(
      """SELECT (SELECT avg(key) FROM testData), (SELECT sum(key) FROM testData),
        |  (SELECT count(DISTINCT key) FROM testData)""".stripMargin)
    counts.values.foreach(c => assert(c.subqueries == 1 && c.reusedSubqueries == 2, c.toString))
  }

  test("merged non-correlated scalar subqueries in a subquery") {
    checkReuse(
      """SELECT (SELECT SUM((SELECT avg(key) FROM testData) + (SELECT sum(key) FROM testData) +
        |  (SELECT count(DISTINCT key) FROM testData)) FROM testData)""".stripMargin)
  }

  test("merged non-correlated scalar subqueries with a join in the merged plan") {
    checkReuse(
      """SELECT (SELECT sum(a.v) FROM big a JOIN small b ON a.k = b.k),
        |  (SELECT count(*) FROM big a JOIN small b ON a.k = b.k),
        |  (SELECT max(b.v) FROM big a JOIN small b ON a.k = b.k)""".stripMargin, NoBroadcast)
  }

  test("subquery reuse across the whole plan (joins in the subquery and in the main query)") {
    val counts = checkReuse(
      """SELECT (SELECT max(a.key) FROM testData a JOIN testData b ON b.key = a.key) AS m
        |FROM testData t1 JOIN testData t2 ON t2.key = t1.key
        |WHERE t1.key > (SELECT max(a.key) FROM testData a JOIN testData b ON b.key = a.key) - 5""".stripMargin,
      NoBroadcast)
    counts.values.foreach(c => assert(c.reusedSubqueries >= 1 && c.reusedExchanges >= 1, c.toString))
  }

  test("self-join of the same aggregated CTE reuses its exchange") {
    val counts = checkReuse(
      """WITH agg AS (SELECT k, sum(v) AS s, count(*) AS c FROM big GROUP BY k)
        |SELECT x.k, x.s + y.s AS s2, x.c - y.c AS c0 FROM agg x JOIN agg y ON x.k = y.k + 1""".stripMargin, NoBroadcast)
    counts.values.foreach(c => assert(c.reusedExchanges >= 1, c.toString))
  }

  test("self-join of the same joined CTE reuses its exchanges, broadcast or shuffled") {
    for (threshold <- Seq("-1", "10m")) {
      withClue(s"[autoBroadcastJoinThreshold=$threshold] ") {
        val counts = checkReuse(
          """WITH j AS (SELECT a.k, a.v, b.v AS bv FROM big a JOIN small b ON a.k = b.k WHERE a.w = 3)
            |SELECT x.k, count(*) AS n, sum(x.v + y.v) AS s, sum(x.bv - y.bv) AS d FROM j x JOIN j y ON x.k = y.k
            |GROUP BY x.k""".stripMargin,
          "spark.sql.autoBroadcastJoinThreshold" -> threshold)
        counts.values.foreach(c => assert(c.reusedExchanges >= 1, c.toString))
      }
    }
  }

  for (strategy <- JoinStrategy.All) {
    test(s"TPC-H q18 at SF 0.01 under ${strategy.name} joins reuses what vanilla reuses") {
      TpchTestData.dataset(spark).registerViews(spark)
      val query = TpchQuery.load(18)
      assert(query.statements().size() == 1, "q18 is one statement")
      val counts = checkReuse(query.answerStatement(), strategy.settings.toSeq: _*)
      info(s"q18 ${strategy.name}: vanilla $counts")
    }
  }

  // Subtrees that differ only in what changes the answer: never one planned for the other.

  test("negative: aggregations with different functions are not reused") {
    val counts = checkReuse(
      """WITH a AS (SELECT k, sum(v) AS x FROM big GROUP BY k), b AS (SELECT k, max(v) AS x FROM big GROUP BY k)
        |SELECT a.k, a.x, b.x FROM a JOIN b ON a.k = b.k + 1""".stripMargin, NoBroadcast)
    counts.values.foreach(c => assert(c.reusedExchanges == 0, c.toString))
  }

  test("negative: aggregations by different keys are not reused") {
    val counts = checkReuse(
      """WITH a AS (SELECT k, sum(v) AS x FROM big GROUP BY k), b AS (SELECT w AS k, sum(v) AS x FROM big GROUP BY w)
        |SELECT a.k, a.x, b.x FROM a JOIN b ON a.k = b.k""".stripMargin, NoBroadcast)
    counts.values.foreach(c => assert(c.reusedExchanges == 0, c.toString))
  }

  test("negative: scalar subqueries over joins of different types are not reused") {
    val counts = checkReuse(
      """SELECT (SELECT count(*) FROM big a JOIN small b ON a.k = b.k),
        |  (SELECT count(*) FROM big a LEFT JOIN small b ON a.k = b.k),
        |  (SELECT count(*) FROM big a LEFT ANTI JOIN small b ON a.k = b.k)""".stripMargin, NoBroadcast)
    // The joins' inputs are the same exchanges (rightly reused); the subqueries are not.
    counts.values.foreach(c => assert(c.subqueries == 3 && c.reusedSubqueries == 0, c.toString))
    val answer = spark.sql("SELECT (SELECT count(*) FROM big a JOIN small b ON a.k = b.k), " +
      "(SELECT count(*) FROM big a LEFT ANTI JOIN small b ON a.k = b.k)").head()
    assert(answer.getLong(0) != answer.getLong(1))
  }

  test("negative: joins with different build sides and keys are not reused") {
    val counts = checkReuse(
      """SELECT (SELECT sum(a.v) FROM big a JOIN small b ON a.k = b.k),
        |  (SELECT sum(a.v) FROM big a JOIN small b ON a.k = b.v)""".stripMargin, NoBroadcast,
      "spark.sql.join.preferSortMergeJoin" -> "false")
    counts.values.foreach(c => assert(c.reusedSubqueries == 0, c.toString))
  }

  // Unit level: the canonical forms themselves, node by node.

  /** Pairs of corresponding nodes of two plans of the same shape, children before their parent. */
  private def zipNodes(a: SparkPlan, b: SparkPlan): Seq[(SparkPlan, SparkPlan)] = {
    assert(a.getClass == b.getClass && a.children.size == b.children.size, s"plans differ:\n$a\n$b")
    a.children.zip(b.children).flatMap { case (x, y) => zipNodes(x, y) } :+ ((a, b))
  }

  /** The constructor fields in which two canonical nodes differ, for the failure message. */
  private def differingFields(x: SparkPlan, y: SparkPlan): String =
    x.productIterator.zip(y.productIterator).zipWithIndex.collect {
      case ((f, g), i) if f != g && !f.isInstanceOf[SparkPlan] => s"field $i: $f <> $g"
    }.mkString("; ")

  private def planned(sql: String): SparkPlan = spark.sql(sql).queryExecution.executedPlan

  private val everyNodeKind = Set("RowmatchHashAggregate", "RowmatchHashJoin", "RowmatchShuffleExchange",
    "RowmatchToArrow", "RowmatchFilter", "RowmatchProject", "RowmatchUnion")

  test("canonicalized: two independently planned equal subtrees are equal, for every Rowmatch node kind") {
    val dir = Files.createTempDirectory("rowmatch-reuse")
    try {
      spark.range(5000).selectExpr("IF(id % 11 = 0, NULL, id % 400) AS k", "id AS v", "CAST(id AS STRING) AS s")
        .write.parquet(dir.resolve("p").toString)
      spark.read.parquet(dir.resolve("p").toString).createOrReplaceTempView("p")
      val queries = Seq(
        // Parquet (columnar) scans feeding a shuffled join: Arrow filters of the inferred isnotnull, projections.
        "SELECT a.k, count(*) AS n, sum(b.v) AS s FROM p a JOIN (SELECT k AS k2, v FROM p) b ON a.k = b.k2 GROUP BY a.k",
        // A broadcast join, row input converted to Arrow.
        "SELECT big.k, small.v FROM big JOIN small ON big.k = small.k",
        // A union of aggregations by the same key, aggregated again.
        "SELECT k, sum(x) FROM (SELECT k, sum(v) x FROM big GROUP BY k UNION ALL SELECT k, sum(v) x FROM small" +
          " GROUP BY k) GROUP BY k",
        // Output projections the aggregate evaluates itself.
        "SELECT k + 1 AS k1, sum(v) * 2 AS s2, avg(v) FROM big GROUP BY k")
      val seen = scala.collection.mutable.Set[String]()
      for (sql <- queries; (aqe, threshold) <- Seq(("false", "-1"), ("false", "10m"))) {
        withConf("spark.sql.adaptive.enabled" -> aqe, "spark.sql.autoBroadcastJoinThreshold" -> threshold) {
          val pairs = zipNodes(planned(sql), planned(sql))
          for ((x, y) <- pairs if x.nodeName.startsWith("Rowmatch")) {
            seen += x.nodeName
            assert(x ne y)
            assert(x.canonicalized == y.canonicalized, s"${x.nodeName}: canonical forms differ in " +
              s"${differingFields(x.canonicalized, y.canonicalized)}\n${x.canonicalized}")
            assert(x.canonicalized.hashCode == y.canonicalized.hashCode, s"${x.nodeName}: hash codes differ")
            assert(x.sameResult(y))
          }
        }
      }
      assert(everyNodeKind.subsetOf(seen.toSet), s"not covered: ${everyNodeKind -- seen}")
    } finally {
      spark.catalog.dropTempView("p")
      val walk = Files.walk(dir)
      try walk.sorted(java.util.Comparator.reverseOrder[java.nio.file.Path]()).forEach(p => Files.delete(p))
      finally walk.close()
    }
  }

  private def rowmatchNodes(sql: String, name: String): Seq[SparkPlan] =
    planned(sql).collect { case p if p.nodeName == name => p }

  test("canonicalized: nodes that compute different answers are different") {
    withConf("spark.sql.adaptive.enabled" -> "false", NoBroadcast) {
      def aggs(sql: String) = rowmatchNodes(sql, "RowmatchHashAggregate").map(_.canonicalized)
      // Same keys, different function; different key; different function argument.
      val base = aggs("SELECT k, sum(v) FROM big GROUP BY k")
      for (other <- Seq("SELECT k, max(v) FROM big GROUP BY k", "SELECT w AS k, sum(v) FROM big GROUP BY w",
          "SELECT k, sum(w) FROM big GROUP BY k", "SELECT k, sum(v) FROM big GROUP BY k, w")) {
        val o = aggs(other)
        assert(base.size == 2 && o.size == 2)
        assert(base.zip(o).forall { case (x, y) => x != y }, s"$other canonicalizes like the base query")
      }
      def joins(sql: String) = rowmatchNodes(sql, "RowmatchHashJoin").map(_.canonicalized)
      val inner = joins("SELECT * FROM big a JOIN small b ON a.k = b.k")
      for (other <- Seq("SELECT * FROM big a LEFT JOIN small b ON a.k = b.k",
          "SELECT * FROM big a FULL JOIN small b ON a.k = b.k", "SELECT * FROM big a JOIN small b ON a.k = b.v",
          "SELECT * FROM big a JOIN small b ON a.k = b.k AND a.v > b.v")) {
        val o = joins(other)
        assert(inner.size == 1 && o.size == 1, other)
        assert(inner.head != o.head, s"$other canonicalizes like the inner join")
      }
      // A null-aware anti join (NOT IN) differs from the plain anti join only in the spec.
      withConf("spark.sql.autoBroadcastJoinThreshold" -> "10m") {
        val anti = joins("SELECT * FROM big WHERE NOT EXISTS (SELECT 1 FROM small WHERE small.k = big.k)")
        val notIn = joins("SELECT * FROM big WHERE k NOT IN (SELECT k FROM small)")
        assert(anti.size == 1 && notIn.size == 1)
        assert(anti.head != notIn.head)
      }
      // Settings captured at planning (the batch size shapes the batches) are part of the canonical form.
      val sql = "SELECT k, sum(v) FROM big GROUP BY k"
      val small = rowmatchNodes(sql, "RowmatchToArrow").map(_.canonicalized)
      val larger = withConf("spark.rowmatch.batchSize" -> "128") {
        rowmatchNodes(sql, "RowmatchToArrow").map(_.canonicalized)
      }
      assert(small.nonEmpty && small.size == larger.size && small.zip(larger).forall { case (x, y) => x != y })
    }
  }
}
