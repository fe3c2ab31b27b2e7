package io.rowmatch.spark

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{RowmatchUnionExec, SparkPlan, UnionExec}

/**
 * Unions (and the set operations Spark plans over them: UNION distinct, EXCEPT ALL, INTERSECT ALL) of
 * aggregations by the same key. Spark's UnionExec reports its children's hash partitioning, so no exchange
 * is planned between it and an aggregation above by the same key; its row path lines the children's
 * partitions up, and the same must hold when it runs columnar over Rowmatch operators. Every query runs
 * under AQE on and off and under several coalescing outcomes (none, some, everything into one partition,
 * children coalesced to different counts), each compared with vanilla Spark.
 */
class SetOperationsSuite extends RowmatchQueryTest {

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark.range(100000).selectExpr("id % 1000 as k", "id as v").createOrReplaceTempView("big")
    spark.range(3000).selectExpr("id % 700 as k", "id as v").createOrReplaceTempView("small")
    spark.range(50).selectExpr("id % 13 as k", "id as v").createOrReplaceTempView("tiny")
    spark.sql("select * from values (1, 2), (1, 2), (1, 3), (2, 3), (2, 2) as t(k, v)")
      .createOrReplaceTempView("tab3")
    spark.sql("select * from values (1, 2), (2, 3), (2, 2), (2, 2), (2, 20) as t(k, v)")
      .createOrReplaceTempView("tab4")
    spark.sql("select * from values (1, 2), (1, 2), (1, 3), (1, 3), (2, 3), (null, null), (null, null)" +
      " as t(k, v)").createOrReplaceTempView("tab1")
    spark.sql("select * from values (1, 2), (1, 2), (2, 3), (3, 4), (null, null), (null, null)" +
      " as t(k, v)").createOrReplaceTempView("tab2")
  }

  /** AQE off; AQE on without coalescing; coalescing to a few partitions; everything into one partition. */
  private val settings: Seq[(String, Seq[(String, String)])] = Seq(
    "AQE off" -> Seq("spark.sql.adaptive.enabled" -> "false", "spark.sql.shuffle.partitions" -> "5"),
    "AQE on, no coalescing" -> Seq("spark.sql.adaptive.enabled" -> "true",
      "spark.sql.adaptive.coalescePartitions.enabled" -> "false", "spark.sql.shuffle.partitions" -> "5"),
    "AQE on, coalesced by size" -> Seq("spark.sql.adaptive.enabled" -> "true",
      "spark.sql.adaptive.coalescePartitions.enabled" -> "true",
      "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "2k",
      "spark.sql.adaptive.coalescePartitions.minPartitionSize" -> "1",
      "spark.sql.shuffle.partitions" -> "11"),
    "AQE on, coalesced to one" -> Seq("spark.sql.adaptive.enabled" -> "true",
      "spark.sql.adaptive.coalescePartitions.enabled" -> "true",
      "spark.sql.adaptive.advisoryPartitionSizeInBytes" -> "64m",
      "spark.sql.shuffle.partitions" -> "7"))

  private def unions(df: DataFrame): Seq[SparkPlan] = executedNodes(df).filter(_.isInstanceOf[UnionExec])

  /** Checks the query under every setting; the plan must hold a union and Rowmatch aggregates. */
  private def checkEverywhere(sql: String): Unit = {
    settings.foreach { case (name, confs) =>
      withClue(s"[$name] ") {
        withConf(confs: _*) {
          checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashAggregate", "RowmatchUnion"))
          val df = spark.sql(sql)
          df.collect()
          val ran = unions(df)
          assert(ran.nonEmpty, s"the query was expected to run a union:\n${df.queryExecution.executedPlan}")
          assert(ran.forall(u => u.isInstanceOf[RowmatchUnionExec] || !u.supportsColumnar),
            s"a columnar union ran as Spark's UnionExec:\n${df.queryExecution.executedPlan}")
          assert(ran.exists(_.isInstanceOf[RowmatchUnionExec]),
            s"no union over Rowmatch operators ran columnar:\n${df.queryExecution.executedPlan}")
        }
      }
    }
  }

  test("aggregation over UNION ALL of aggregations by the same key keeps one group per key") {
    val sql = "select k, sum(x) s, count(*) c from (select k, sum(v) x from big group by k union all " +
      "select k, sum(v) x from small group by k) group by k"
    checkEverywhere(sql)
    assert(spark.sql(s"select count(*) from ($sql)").head().getLong(0) == 1000)
  }

  test("count of groups over UNION ALL of aggregations (the store/catalog/web report shape)") {
    checkEverywhere("select count(*) from (select k, sum(x) from (select k, sum(v) x from big group by k " +
      "union all select k, sum(v) x from small group by k union all select k, sum(v) x from tiny group by k)" +
      " group by k)")
  }

  test("UNION (distinct) of aggregations") {
    checkEverywhere("select k, sum(v) from big group by k union select k, sum(v) from small group by k")
    checkEverywhere("select k from big group by k union select k from small group by k")
  }

  test("EXCEPT ALL over aggregations (Spark's except-all.sql, group by under ExceptAll)") {
    checkEverywhere("select v from tab3 group by v except all select k from tab4 group by k")
  }

  test("INTERSECT ALL over aggregations (Spark's intersect-all.sql, group by under intersect all)") {
    checkEverywhere("select v from tab1 group by v intersect all select k from tab2 group by k")
  }

  test("a vanilla join over a UNION ALL of Rowmatch aggregations reads the union's partitions lined up") {
    withConf("spark.rowmatch.join.enabled" -> "false", "spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      checkEverywhere("select u.k, u.x, b.c from (select k, sum(v) x from big group by k union all " +
        "select k, sum(v) x from small group by k) u join (select k, count(*) c from big group by k) b " +
        "on u.k = b.k")
    }
  }

  test("a Rowmatch join over a UNION ALL of aggregations") {
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      checkEverywhere("select u.k, u.x, b.c from (select k, sum(v) x from big group by k union all " +
        "select k, sum(v) x from small group by k) u join (select k, count(*) c from big group by k) b " +
        "on u.k = b.k")
    }
  }

  test("union of aggregations by the key under a different name and of unrelated aggregations") {
    checkEverywhere("select a, sum(x) from (select k a, sum(v) x from big group by k union all " +
      "select k a, max(v) x from small group by k) group by a")
    checkEverywhere("select k, count(*) from (select k, sum(v) x from big group by k union all " +
      "select v % 7 k, count(*) x from small group by v % 7) group by k")
  }

  test("a UNION ALL of filtered, projected scans read by a join runs on Arrow batches, branches included") {
    val dir = java.nio.file.Files.createTempDirectory("rowmatch-union-scans").toFile
    try {
      val sales = new java.io.File(dir, "sales").getPath
      val returns = new java.io.File(dir, "returns").getPath
      spark.range(0, 20000).selectExpr("CASE WHEN id % 11 = 0 THEN null ELSE id % 300 END AS store",
        "cast(id % 97 AS decimal(7,2)) AS price").write.parquet(sales)
      spark.range(0, 3000).selectExpr("CASE WHEN id % 13 = 0 THEN null ELSE id % 300 END AS store",
        "cast(id % 89 AS decimal(7,2)) AS amt").write.parquet(returns)
      spark.read.parquet(sales).createOrReplaceTempView("u_sales")
      spark.read.parquet(returns).createOrReplaceTempView("u_returns")
      val stores = new java.io.File(dir, "stores").getPath
      spark.range(0, 300).selectExpr("id AS sk", "concat('s', id % 40) AS name").write.parquet(stores)
      spark.read.parquet(stores).createOrReplaceTempView("u_store")
      // q5's shape: each branch renames and fills the other branch's columns with 0.00.
      def q(returnsBranch: String) = spark.sql("SELECT /*+ BROADCAST(u_store) */ name, sum(price) p, sum(amt) a " +
        "FROM (SELECT store, price, 0.00 AS amt FROM u_sales WHERE store IS NOT NULL UNION ALL " +
        s"$returnsBranch) x JOIN u_store ON x.store = u_store.sk GROUP BY name")
      val columnar = "SELECT store, 0.00 AS price, amt FROM u_returns WHERE store IS NOT NULL AND amt > 1"
      withConf("spark.rowmatch.placement.enabled" -> "true") {
        checkAnswerAndOperators(q(columnar), mustRun = Seq("RowmatchUnion", "RowmatchHashJoin", "RowmatchFilter"),
          noVanilla = Seq(classOf[org.apache.spark.sql.execution.FilterExec],
            classOf[org.apache.spark.sql.execution.ProjectExec]))
        // A branch the kernels cannot run keeps the union (and the other branch) on rows: one conversion above it.
        spark.udf.register("u_same", (d: java.math.BigDecimal) => d)
        val rows = checkAnswerAndOperators(q(columnar.replace("amt FROM", "u_same(amt) AS amt FROM")),
          mustRun = Seq("RowmatchHashJoin"))
        assert(rows.nonEmpty)
        val mixed = q(columnar.replace("amt FROM", "u_same(amt) AS amt FROM"))
        mixed.collect()
        assert(!executedNodes(mixed).exists(_.isInstanceOf[RowmatchUnionExec]), planText(mixed))
      }
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(dir)
    }
  }
}
