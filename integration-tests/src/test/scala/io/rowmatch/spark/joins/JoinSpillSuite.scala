package io.rowmatch.spark.joins

import org.apache.spark.sql.{DataFrame, SparkSession}

import io.rowmatch.spark.config.RowmatchConf
import io.rowmatch.spark.memory.SpillFile
import io.rowmatch.spark.testing.TestFaults

/**
 * Shuffled (and sort-merge-replaced) hash joins whose build side does not fit: under the test-only grant
 * cap (spark.rowmatch.test.taskMemoryGrant) each task's Rowmatch operators get about 1 MB from Spark's
 * memory manager, so the join becomes a grace hash join (both sides partitioned to disk, partition pairs
 * joined in memory). Every join type (the existence join of EXISTS under OR too), with and without a residual
 * condition, null keys on both sides:
 * answers equal vanilla Spark's, the join's spill metrics count the spills, and no spill file or Arrow
 * memory is left, also after a task failed while partitioning.
 */
class JoinSpillSuite extends JoinQueryTest {
  // TestFaults.ENABLED is a startup setting: without it the test-only settings do nothing.
  override protected lazy val spark: SparkSession =
    rowmatchSession("local[2,2]", "spark.rowmatch.batchSize" -> "512", TestFaults.ENABLED -> "true")

  private val grant = Seq(RowmatchConf.TEST_TASK_MEMORY_GRANT_ENTRY.key -> "1m")

  /** 120K rows a side over 40K keys (3 rows a key on each side), 1 in 20 keys null, some string payload. */
  private def side(seed: Int, name: String): DataFrame =
    spark.range(0, 120000, 1, 4).selectExpr(
      s"case when (id * $seed) % 20 = 0 then null else (id * $seed) % 40000 end as k",
      s"id as ${name}v", s"concat('$name-', cast(id as string), '-é') as ${name}s")

  private def joinSpills(df: DataFrame): Long = rowmatchJoins(df).map(_.metrics("numSpills").value).sum

  for (st <- Seq(ShuffledHash, SortMerge); jt <- joinTypes; cond <- Seq(false, true)) {
    test(s"$jt join, ${st.name}${if (cond) ", residual condition" else ""}: spills and answers as vanilla") {
      val l = side(7, "l")
      val r = side(3, "r")
      checkJoin(st, extraConf = grant) {
        val on = l("k") === r("k")
        l.join(r, if (cond) on && (l("lv") + r("rv")) % 3 =!= 0 else on, jt)
      }
      assert(joinSpills(lastJoin) > 0, s"no spill in\n${planText(lastJoin)}")
      assert(SpillFile.openFiles() == 0, "a spill file was left behind")
    }
  }

  for (st <- Seq(ShuffledHash, SortMerge); cond <- Seq(false, true)) {
    test(s"existence join (EXISTS under OR), ${st.name}${if (cond) ", residual condition" else ""}: spills and " +
      "answers as vanilla") {
      side(7, "l").createOrReplaceTempView("sl")
      side(3, "r").createOrReplaceTempView("sr")
      val residual = if (cond) " and (sl.lv + sr.rv) % 3 <> 0" else ""
      checkJoin(st, extraConf = grant) {
        spark.sql(s"select * from sl where exists (select 1 from sr where sr.k = sl.k$residual) or sl.lv % 9 = 0")
      }
      assert(rowmatchJoins(lastJoin).exists(_.spec.kind == io.rowmatch.spark.join.JoinSpec.Kind.EXISTENCE),
        planText(lastJoin))
      assert(joinSpills(lastJoin) > 0, s"no spill in\n${planText(lastJoin)}")
      assert(SpillFile.openFiles() == 0, "a spill file was left behind")
    }
  }

  for (st <- Seq(ShuffledHash, SortMerge)) {
    test(s"inner join, ${st.name}, comparing an int column of each side (a band): spills and answers as vanilla") {
      val l = side(7, "l").selectExpr("*", "cast(lv % 1000 as int) as lq")
      val r = side(3, "r").selectExpr("*", "case when rv % 9 = 0 then null else cast(rv % 1000 as int) end as rq")
      checkJoin(st, extraConf = grant)(l.join(r, l("k") === r("k") && l("lq") <= r("rq"), "inner"))
      assert(rowmatchJoins(lastJoin).exists(_.simpleString(300).contains("band=")), planText(lastJoin))
      assert(joinSpills(lastJoin) > 0, s"no spill in\n${planText(lastJoin)}")
      assert(SpillFile.openFiles() == 0, "a spill file was left behind")
    }
  }

  test("multi-column keys with a computed key (int to bigint) spill") {
    val l = side(7, "l").selectExpr("cast(k as int) as k", "lv % 5 as k2", "ls")
    val r = side(3, "r").selectExpr("k", "rv % 5 as k2", "rs")
    checkJoin(ShuffledHash, extraConf = grant) {
      l.join(r, l("k") === r("k") && l("k2") === r("k2"), "full_outer")
    }
    assert(joinSpills(lastJoin) > 0)
  }

  test("a skewed key (most build rows share one key) still answers as vanilla") {
    val l = spark.range(0, 60000, 1, 4).selectExpr("case when id % 10 = 0 then id else 1 end as k", "id as lv")
    val r = spark.range(0, 100000, 1, 4).selectExpr("case when id % 4 = 0 then id else 1 end as k",
      "concat('r', cast(id as string)) as rs")
    checkJoin(ShuffledHash, extraConf = grant) {
      l.join(r, l("k") === r("k"), "left_semi")
    }
  }

  test("an empty build side and an empty probe side under the cap") {
    val l = side(7, "l")
    val none = side(3, "r").where("rv < 0")
    for (jt <- Seq("inner", "left_outer", "full_outer", "left_anti")) {
      checkJoin(ShuffledHash, extraConf = grant)(l.join(none, l("k") === none("k"), jt))
      checkJoin(ShuffledHash, extraConf = grant)(none.join(l, l("k") === none("k"), jt))
    }
  }

  test("a task failing while the join partitions to disk leaves no spill file and no Arrow memory") {
    val l = side(7, "l")
    val r = side(3, "r")
    val faults = Seq(TestFaults.FAIL_AFTER_BATCHES -> "40", TestFaults.OPERATOR -> "RowmatchHashJoin")
    checkJoin(ShuffledHash, extraConf = grant ++ faults)(l.join(r, l("k") === r("k"), "full_outer"))
    assert(joinSpills(lastJoin) > 0)
    assert(SpillFile.openFiles() == 0)
  }
}
