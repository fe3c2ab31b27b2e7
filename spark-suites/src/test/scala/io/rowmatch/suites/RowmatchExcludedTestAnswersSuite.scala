package io.rowmatch.suites

import org.apache.spark.sql.{DataFrame, QueryTest, Row}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeLike, ReusedExchangeExec, ShuffleExchangeLike}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.test.SharedSparkSession

import io.rowmatch.spark.rules.FallbackReasons

/**
 * The answers and plan shapes behind the tests `excluded-tests.tsv` leaves out as `operator-class`. Those
 * tests stop at their first assertion about Spark's own classes (a SortMergeJoinExec count, a
 * ShuffleExchangeExec count), so the answers they would check next never ran under the plugin. Here the
 * same kinds of query run with the plugin off and on in one session: the answers must be equal, a Rowmatch
 * operator must have run, and where the Spark test pins a plan property that does not depend on the
 * operator class (the number of shuffles), it holds for Rowmatch's plan too.
 */
class RowmatchExcludedTestAnswersSuite extends QueryTest with SharedSparkSession
    with AdaptiveSparkPlanHelper with RowmatchSuiteChecks {
  import testImplicits._

  setupTestData()

  override protected def minRowmatchPlans: Long = 120

  private def rowmatchNodes(plan: SparkPlan): Seq[String] =
    collectWithSubqueries(plan) { case p if p.nodeName.startsWith("Rowmatch") => p.nodeName }

  /** Shuffles the plan reads, a reused one counted where it is read (reuse is not a shuffle less to plan). */
  private def shuffles(plan: SparkPlan): Int = collect(plan) {
    case s: ShuffleExchangeLike => s
    case r @ ReusedExchangeExec(_, _: ShuffleExchangeLike) => r
  }.size

  /**
   * Runs `query` plugin off, then on: equal answers as multisets (also under an ORDER BY: rows tied under
   * it may come in any order), a Rowmatch operator ran (unless `rowmatch` is false: AQE may find a side
   * empty and drop the join), and, when given, the plan has that many shuffles.
   */
  private def sameAnswer(query: => DataFrame, expectedShuffles: Option[Int] = None,
      rowmatch: Boolean = true): Unit = {
    val vanilla = withSQLConf("spark.rowmatch.enabled" -> "false") {
      val df = query
      val rows = df.collect().toSeq
      assert(rowmatchNodes(df.queryExecution.executedPlan).isEmpty, "plugin off, yet a Rowmatch operator ran")
      rows
    }
    val df = query
    val actual = df.collect().toSeq
    val plan = df.queryExecution.executedPlan
    QueryTest.sameRows(vanilla, actual).foreach(diff => fail(s"plugin off and on differ:\n$diff\n$plan"))
    if (rowmatch) {
      assert(rowmatchNodes(plan).nonEmpty,
        s"no Rowmatch operator in\n$plan\nfallbacks: ${FallbackReasons.collect(plan)}")
    }
    expectedShuffles.foreach(n => assert(shuffles(plan) === n, s"shuffles in\n$plan"))
  }

  // Key pairs of JoinSuite's shuffled-hash-join tests (SPARK-32399, SPARK-36612): unique, repeated, empty,
  // string, null and multi-column keys. Each: left select list over range(10), right over range(30).
  private val keyPairs: Seq[(String, String)] = Seq(
    ("id", "id"),
    ("id % 5", "id % 5"),
    ("cast(id * 3 as string)", "cast(id as string)"),
    ("if(id % 2 = 0, id, null)", "if(id % 4 = 0, id, null)"),
    ("if(id % 3 = 0, id, null)", "if(id % 5 = 0, id, null)"))

  private def sides(l: String, r: String, leftEmpty: Boolean = false, rightEmpty: Boolean = false) = {
    // A filter the optimizer cannot prove empty; AQE then finds the side empty at run time.
    val left = spark.range(10).selectExpr(s"$l as k1").where(if (leftEmpty) "k1 < -1" else "true")
    val right = spark.range(30).selectExpr(s"$r as k2").where(if (rightEmpty) "k2 < -1" else "true")
    (left, right)
  }

  private def multiKeySides = {
    val left = spark.range(10).selectExpr("if(id % 2 = 0, id, null) as v")
      .selectExpr("v as k1", "cast(v % 5 as short) as k2", "cast(v * 3 as long) as k3")
    val right = spark.range(30).selectExpr("if(id % 3 = 0, id, null) as v")
      .selectExpr("v as k4", "cast(v % 5 as short) as k5", "cast(v * 3 as long) as k6")
    (left, right, $"k1" === $"k4" && $"k2" === $"k5" && $"k3" === $"k6")
  }

  test("JoinSuite SPARK-32399: full outer joins, merge and hash hints") {
    val inputs = keyPairs.map { case (l, r) => (sides(l, r), true) } ++
      Seq(sides("id", "id", leftEmpty = true), sides("id", "id", rightEmpty = true),
        sides("id", "id", leftEmpty = true, rightEmpty = true)).map(_ -> false)
    for (((left, right), nonEmpty) <- inputs; hint <- Seq("SHUFFLE_MERGE", "SHUFFLE_HASH")) {
      sameAnswer(left.join(right.hint(hint), $"k1" === $"k2", "full"), rowmatch = nonEmpty)
    }
    val (l, r, cond) = multiKeySides
    Seq("SHUFFLE_MERGE", "SHUFFLE_HASH").foreach(h => sameAnswer(l.join(r.hint(h), cond, "full")))
  }

  test("JoinSuite SPARK-36612: left outer join building left, right outer join building right") {
    for ((l, r) <- keyPairs; hint <- Seq("SHUFFLE_MERGE", "SHUFFLE_HASH")) {
      val (left, right) = sides(l, r)
      sameAnswer(left.hint(hint).join(right, $"k1" === $"k2", "leftouter"))
      sameAnswer(right.join(left.hint(hint), $"k1" === $"k2", "rightouter"))
    }
    val (l, r, cond) = multiKeySides
    sameAnswer(l.hint("SHUFFLE_HASH").join(r, cond, "leftouter"))
    sameAnswer(r.join(l.hint("SHUFFLE_HASH"), cond, "rightouter"))
  }

  test("JoinSuite SPARK-43113: full outer join with duplicate stream-side references in the condition") {
    Seq("MERGE", "SHUFFLE_HASH").foreach { hint =>
      val df = sql(
        s"""select /*+ $hint(r) */ * from testData2 l full outer join testData3 r
           |on l.a = r.a and l.b < (r.b + 1) and l.b < (r.a + 1)""".stripMargin)
      // Spark's expected rows for this query.
      checkAnswer(df, Seq(Row(1, 1, null, null), Row(1, 2, null, null), Row(null, null, 1, null),
        Row(2, 1, 2, 2), Row(2, 2, 2, 2), Row(3, 1, null, null), Row(3, 2, null, null)))
      assert(rowmatchNodes(df.queryExecution.executedPlan).contains("RowmatchHashJoin"))
    }
  }

  test("JoinSuite SPARK-32649: inner and semi joins with an empty build side") {
    val probe = spark.range(30).selectExpr("id as k1")
    val empty = spark.range(10).selectExpr("id as k2").filter("k2 < -1")
    for (jt <- Seq("inner", "semi"); hint <- Seq("BROADCAST", "SHUFFLE_HASH");
         aqe <- Seq("false", "true"); codegen <- Seq("true", "false")) {
      withSQLConf(SQLConf.ADAPTIVE_EXECUTION_ENABLED.key -> aqe, SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> codegen) {
        val df = probe.join(empty.hint(hint), $"k1" === $"k2", jt)
        checkAnswer(df, Seq.empty)
      }
    }
  }

  test("JoinSuite SPARK-36794: semi and anti joins with repeated build keys, with and without conditions") {
    withTable("t1", "t2", "t1a", "t2a") {
      spark.range(10).map(i => (i.toString, i + 1)).toDF("c1", "c2").write.saveAsTable("t1")
      spark.range(10).map(i => ((i % 5).toString, i % 3)).toDF("c1", "c2").write.saveAsTable("t2")
      spark.range(10).map(i => (i, i + 1)).toDF("c1", "c2").write.saveAsTable("t1a")
      spark.range(10).map(i => (i % 5, i % 3)).toDF("c1", "c2").write.saveAsTable("t2a")
      val queries = Seq(
        "SELECT /*+ SHUFFLE_HASH(t2) */ t1.c1 FROM t1 LEFT SEMI JOIN t2 ON t1.c1 = t2.c1",
        "SELECT /*+ SHUFFLE_HASH(t2) */ t1.c1 FROM t1 LEFT SEMI JOIN t2 ON t1.c1 = t2.c1 " +
          "AND CAST(t1.c2 * 2 AS STRING) != t2.c1",
        "SELECT /*+ SHUFFLE_HASH(t2) */ t1.c1 FROM t1 LEFT SEMI JOIN t2 ON t1.c1 = t2.c1 AND t1.c2 * 100 != t2.c2",
        "SELECT /*+ SHUFFLE_HASH(t2a) */ t1a.c1 FROM t1a LEFT SEMI JOIN t2a " +
          "ON CAST((t1a.c2+10000)/1000 AS INT) = CAST((t2a.c2+10000)/1000 AS INT) AND t2a.c2 >= t1a.c2 + 1",
        "SELECT /*+ SHUFFLE_HASH(t2a) */ t1a.c1 FROM t1a LEFT SEMI JOIN t2a " +
          "ON t1a.c1 * 10000 = t2a.c1 * 1000 AND t2a.c1 * 1000 >= t1a.c1")
      queries.foreach { q =>
        sameAnswer(sql(q))
        sameAnswer(sql(q.replace("SEMI", "ANTI")))
      }
    }
  }

  test("JoinSuite SPARK-32330 and SPARK-32383: hash joins keep their partitioning (no extra shuffle)") {
    val df1 = spark.range(10).select($"id".as("k1"))
    val df2 = spark.range(30).select($"id".as("k2"))
    Seq("inner", "cross").foreach { jt =>
      // Spark's test: 2 shuffles, none between the join and the aggregation.
      sameAnswer(df1.join(df2.hint("SHUFFLE_HASH"), $"k1" === $"k2", jt).groupBy($"k1").count(), Some(2))
    }
    val d1 = spark.range(100).select($"id".as("k1"))
    val d2 = spark.range(100).select($"id".as("k2"))
    val d3 = spark.range(3).select($"id".as("k3"))
    val d4 = spark.range(100).select($"id".as("k4"))
    for ((hint, n) <- Seq("BROADCAST" -> 3, "SHUFFLE_HASH" -> 4); jt <- Seq("inner", "left_outer")) {
      sameAnswer(d1.join(d2.hint("SHUFFLE_MERGE"), $"k1" === $"k2", jt).join(d3.hint(hint), $"k1" === $"k3", jt)
        .join(d4.hint("SHUFFLE_MERGE"), $"k1" === $"k4", jt), Some(n))
    }
  }

  test("SubquerySuite SPARK-36280: one shuffle for an IN subquery over a window over an aggregation") {
    withTable("t1", "t2") {
      sql("CREATE TABLE t1 USING parquet AS SELECT id AS a, id AS b, id AS c FROM range(10)")
      sql("CREATE TABLE t2 USING parquet AS SELECT id AS x, id AS y FROM range(8)")
      sameAnswer(sql(
        """SELECT * FROM t1 WHERE a IN (SELECT x FROM (SELECT x AS x,
          |  RANK() OVER (PARTITION BY x ORDER BY SUM(y) DESC) AS ranking FROM t2 GROUP BY x) tmp1
          |  WHERE ranking <= 5)""".stripMargin), Some(1))
    }
  }

  test("DataFrameAggregateSuite SPARK-31620: aggregations over scalar subqueries") {
    withTempView("t1", "t2") {
      sql("create temporary view t1 as select * from values (1, 2) as t1(a, b)")
      sql("create temporary view t2 as select * from values (3, 4) as t2(c, d)")
      Seq("true", "false").foreach { codegen =>
        withSQLConf(SQLConf.WHOLESTAGE_CODEGEN_ENABLED.key -> codegen) {
          val max = sql("select max(if(c > (select a from t1), 'str1', 'str2')) as csum from t2")
          checkAnswer(max, Row("str1"))
          val list = sql("select collect_list(d), sum(if(c > (select a from t1), d, 0)) as csum from t2")
          checkAnswer(list, Row(Array(4), 4))
          sameAnswer(sql("select c, sum(if(c > (select a from t1), d, 0)) as csum from t2 group by c"))
        }
      }
    }
  }

  test("DataFrameAggregateSuite SPARK-43876: distinct with the two-level aggregation map on") {
    withSQLConf(SQLConf.ENABLE_TWOLEVEL_AGG_MAP.key -> "true") {
      sameAnswer(testData2.distinct())
    }
  }

  test("DataFrameJoinSuite: a broadcast hint naming a table by database.table") {
    withTempDatabase { db =>
      withTable("t1", "t2") {
        withSQLConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> "-1") {
          spark.range(50).write.saveAsTable(s"$db.t1")
          spark.range(100).write.saveAsTable(s"$db.t2")
          def query = sql(s"SELECT /*+ BROADCAST($db.t1) */ * FROM $db.t1, $db.t2 WHERE t1.id = t2.id")
          sameAnswer(query)
          // The hint was applied: one broadcast, of t1, feeding a Rowmatch join.
          val df = query
          df.collect()
          val plan = df.queryExecution.executedPlan
          val broadcasts = collect(plan) { case b: BroadcastExchangeLike => b }
          assert(broadcasts.size == 1, s"one broadcast in\n$plan")
          assert(broadcasts.head.treeString.contains(s"$db.t1"), s"t1 broadcast in\n$plan")
          assert(rowmatchNodes(plan).contains("RowmatchHashJoin"), s"a Rowmatch join in\n$plan")
        }
      }
    }
  }

  test("SQLQueryTestSuite udf/postgreSQL/udf-join.sql query 148: the rows tied under ORDER BY udf(1)") {
    // The golden file pins the order of five rows tied under a constant sort key; compare them as a multiset.
    withTempView("tenk1", "int4_tbl") {
      spark.range(0, 10000).selectExpr("cast(id as int) as unique1", "cast((id * 7919) % 10000 as int) as unique2",
        "cast(id % 1000 as int) as thousand", "cast(id as int) as tenthous").createOrReplaceTempView("tenk1")
      Seq(0, 123456, -123456, 2147483647, -2147483647).toDF("f1").createOrReplaceTempView("int4_tbl")
      withSQLConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD.key -> "-1") {
        sameAnswer(sql(
          """select b.unique1 from
            |  tenk1 a join tenk1 b on a.unique1 = b.unique2
            |  left join tenk1 c on b.unique1 = 42 and c.thousand = a.thousand
            |  join int4_tbl i1 on b.thousand = f1
            |  right join int4_tbl i2 on i2.f1 = b.tenthous
            |  order by 1 + 0 * i2.f1""".stripMargin))
      }
    }
  }
}
