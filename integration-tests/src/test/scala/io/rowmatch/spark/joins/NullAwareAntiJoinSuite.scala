package io.rowmatch.spark.joins

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec
import org.apache.spark.sql.functions._

/**
 * `NOT IN (subquery)`: Spark plans a broadcast hash join with isNullAwareAntiJoin, and SQL's three-valued
 * logic decides: an empty subquery keeps every row (null keys too), a null in the subquery keeps none, a
 * null probe key is dropped against a non-empty subquery, otherwise an anti join on the key.
 */
class NullAwareAntiJoinSuite extends JoinQueryTest {

  private lazy val left = JoinData.intKeys(spark, 300, 12, seed = 51, nullKeys = 0.1).toDF("k", "lv")
  private lazy val right = JoinData.intKeys(spark, 16, 30, seed = 52, nullKeys = 0.1).toDF("k", "rv")

  private def views(l: DataFrame, r: DataFrame): Unit = {
    l.createOrReplaceTempView("l")
    r.createOrReplaceTempView("r")
  }

  /** checkJoin under broadcast, and the join that ran must be the null-aware one. */
  private def checkNullAware(query: String): Unit = {
    val rows = checkJoin(Broadcast)(spark.sql(query))
    withConf(Broadcast.conf: _*) {
      val df = spark.sql(query)
      df.collect()
      assert(rowmatchJoins(df).exists(_.spec.nullAwareAnti), planText(df))
    }
    assert(rows != null)
  }

  private val notIn = "select * from l where k not in (select k from r)"

  test("NOT IN: nulls on both sides (no row survives a null in the subquery)") {
    views(left, right.withColumn("k", when(col("rv") === 0, lit(null)).otherwise(col("k")))) // one null at least
    checkNullAware(notIn)
    withConf(Broadcast.conf: _*) {
      assert(spark.sql(notIn).count() == 0, "a null in the subquery leaves no row")
    }
  }

  test("NOT IN: no null in the subquery, nulls on the probe side are dropped") {
    views(left, right.filter(col("k").isNotNull))
    checkNullAware(notIn)
    withConf(Broadcast.conf: _*) {
      val rows = spark.sql(notIn).collect()
      assert(rows.nonEmpty && rows.forall(!_.isNullAt(0)), rows.mkString(", "))
    }
  }

  test("NOT IN: an empty subquery keeps every row, null keys included") {
    views(left, right.filter(col("rv") < -1))
    checkNullAware(notIn)
    withConf(Broadcast.conf: _*) {
      assert(spark.sql(notIn).count() == left.count())
    }
  }

  test("NOT IN: a subquery of only nulls, and an empty probe side") {
    views(left, right.filter(col("k").isNull))
    checkNullAware(notIn)
    views(left.filter(col("lv") < -1), right.filter(col("k").isNotNull))
    checkNullAware(notIn)
  }

  test("NOT IN: the subquery forms (NOT (x IN ...), a filtered subquery, another predicate beside it)") {
    views(left, right.filter(col("k").isNotNull))
    checkNullAware("select * from l where not (k in (select k from r))")
    checkNullAware("select * from l where k not in (select k from r where rv % 2 = 0) and lv > 10")
    checkNullAware("select lv from l where k not in (select k from r where rv > 100000)")
    views(left, right)
    checkNullAware("select * from l where k not in (select k from r where rv % 3 = 0)")
  }

  test("NOT IN with key expressions: int against bigint, arithmetic, strings") {
    views(left, right.filter(col("k").isNotNull))
    checkNullAware("select * from l where k not in (select cast(k as bigint) from r)")
    checkNullAware("select * from l where k + 1 not in (select k * 2 from r)")
    checkNullAware("select * from l where cast(k as string) not in (select concat('', k) from r)")
    views(left, right)
    checkNullAware("select * from l where k + 1 not in (select k * 2 from r)")
  }

  test("NOT IN on floating-point keys: equal answers, replaced or kept vanilla with its reason") {
    val l = JoinData.allTypes(spark, 100, seed = 53, nulls = 0.1)
    val r = JoinData.allTypes(spark, 40, seed = 54, nulls = 0.0)
    views(l, r)
    for (q <- Seq("select * from l where d not in (select d from r)",
        "select * from l where f not in (select f from r)")) {
      withConf(Broadcast.conf: _*) {
        val expected = withConf("spark.rowmatch.enabled" -> "false")(spark.sql(q).collect().toSeq)
        val df = spark.sql(q)
        assertSameRows(expected, df.collect().toSeq, planText(df))
        val nullAware = executedNodes(df).exists {
          case b: BroadcastHashJoinExec => b.isNullAwareAntiJoin
          case _ => false
        }
        if (nullAware) {
          assert(fallbackReasons(df).exists(_.contains("float key")), planText(df))
        } else {
          assert(rowmatchJoins(df).exists(_.spec.nullAwareAnti), planText(df))
        }
      }
    }
  }
}
