package io.rowmatch.spark.joins

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions._

import io.rowmatch.spark.config.RowmatchConf
import io.rowmatch.spark.memory.SpillFile
import io.rowmatch.spark.testing.TestFaults

/**
 * Extreme skew: one key holds 1M build rows, far more than the task's memory (the test-only grant cap of a
 * few MB). Partitioning cannot split a single key, so the grace join's last partition is joined by chunks of
 * its build rows (ChunkedJoin): every join type (the existence join of EXISTS under OR too), build side left and right, with and without a residual
 * condition, null keys on both sides. Answers equal vanilla Spark's (compared per probe row: each output is
 * grouped by the preserved side's row id, so a lost, doubled or wrongly kept row changes a group), the join
 * spilled and chunked, and no spill file or Arrow memory is left, also after a task failed mid-chunk.
 */
class JoinSkewChunksSuite extends JoinQueryTest {
  // Plugin defaults for batches and placement (1M rows a side); AQE's skew split off: the skew is what the join
  // must handle. TestFaults.ENABLED is a startup setting: without it the test-only settings do nothing.
  override protected lazy val spark: SparkSession = rowmatchSession("local[2,2]",
    "spark.sql.shuffle.partitions" -> "2", "spark.rowmatch.batchSize" -> RowmatchConf.BATCH_SIZE_ENTRY.defaultValueString,
    "spark.rowmatch.placement.enabled" -> "true", "spark.sql.adaptive.skewJoin.enabled" -> "false",
    TestFaults.ENABLED -> "true")

  private val failures = new java.util.concurrent.ConcurrentLinkedQueue[String]()

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark.sparkContext.addSparkListener(new org.apache.spark.scheduler.SparkListener {
      override def onTaskEnd(e: org.apache.spark.scheduler.SparkListenerTaskEnd): Unit = e.reason match {
        case f: org.apache.spark.ExceptionFailure => failures.add(s"${f.className}: ${f.description}")
        case _ =>
      }
    })
  }

  private val grant = Seq(RowmatchConf.TEST_TASK_MEMORY_GRANT_ENTRY.key -> "4m")
  private val SkewRows = 1000000L

  /**
   * 1M rows of key 1, 20K other keys, 1 in 4000 rows a null key. Hinted shuffle_hash, so Spark (and so
   * Rowmatch) hashes it wherever the join type allows.
   */
  private def skewed: DataFrame = spark.range(0, SkewRows + 20000, 1, 2).selectExpr(
    s"case when id % 4000 = 7 then null when id < $SkewRows then 1 else id end as k", "id as sv")
    .hint("shuffle_hash")

  /** 150K rows: 3 of key 1, 1 in 1000 of a key in the skewed side's tail, some null keys, a string. */
  private def other: DataFrame = spark.range(0, 150000, 1, 2).selectExpr(
    s"case when id % 50000 = 3 then 1 when id % 997 = 5 then null when id % 1000 = 0 then $SkewRows + id / 10 " +
      s"else id + 2 * $SkewRows end as k",
    "id as ov", "concat('o-', cast(id as string), '-é') as os")

  /** Per row of the output's first side: how many output rows and a checksum of the other side's values. */
  private def perRow(joined: DataFrame, id: String, otherValue: Option[String]): DataFrame = {
    val aggs: Seq[Column] = Seq(count(lit(1)).as("n")) ++
      otherValue.toSeq.flatMap(v => Seq(sum(col(v)).as("s"), count(col(v)).as("c")))
    joined.groupBy(col(id)).agg(aggs.head, aggs.tail: _*)
  }

  private def chunks(df: DataFrame): Long = rowmatchJoins(df).map(_.metrics("numBuildChunks").value).sum
  private def spills(df: DataFrame): Long = rowmatchJoins(df).map(_.metrics("numSpills").value).sum

  /** `skewedLeft`: the skewed side is the join's left input (else its right). */
  private def query(jt: String, skewedLeft: Boolean, cond: Boolean): DataFrame = {
    val s = skewed
    val o = other
    val on = s("k") === o("k")
    val condition = if (cond) on && (s("sv") + o("ov")) % 3 =!= 0 else on
    val existence = jt == "left_semi" || jt == "left_anti"
    if (skewedLeft) perRow(s.join(o, condition, jt), "sv", if (existence) None else Some("ov"))
    else perRow(o.join(s, condition, jt), "ov", if (existence) None else Some("sv"))
  }

  for (jt <- joinTypes; skewedLeft <- Seq(false, true); cond <- Seq(false, true)
       if !(skewedLeft && Set("inner", "full_outer", "left_semi", "left_anti")(jt) && !cond)) {
    val where = if (skewedLeft) "skewed side left" else "skewed side right"
    // Spark hashes a semi/anti join's right side only: skewed left, the skew is on the probe side (no chunks).
    val buildsSkewed = !(skewedLeft && (jt == "left_semi" || jt == "left_anti"))
    test(s"$jt join, $where${if (cond) ", residual condition" else ""}: " +
      (if (buildsSkewed) "joined by build chunks as vanilla" else "a skewed probe side, as vanilla")) {
      checkJoin(ShuffledHash, extraConf = grant)(query(jt, skewedLeft, cond))
      val joins = rowmatchJoins(lastJoin)
      assert(spills(lastJoin) > 0, s"no spill in\n${planText(lastJoin)}")
      if (buildsSkewed) {
        assert(joins.forall(_.spec.buildLeft == skewedLeft), s"the skewed side is not the build side in\n" +
          planText(lastJoin))
        assert(chunks(lastJoin) > 0, s"no build chunks in\n${planText(lastJoin)}")
      }
      assert(SpillFile.openFiles() == 0, "a spill file was left behind")
    }
  }

  for (cond <- Seq(false, true)) {
    test(s"existence join (EXISTS under OR), skewed side right${if (cond) ", residual condition" else ""}: " +
      "joined by build chunks as vanilla") {
      skewed.createOrReplaceTempView("skewed")
      other.createOrReplaceTempView("other")
      val residual = if (cond) " and (s.sv + o.ov) % 3 <> 0" else ""
      checkJoin(ShuffledHash, extraConf = grant) {
        perRow(spark.sql(s"select o.* from other o where exists (select 1 from skewed s where s.k = o.k$residual) " +
          "or o.ov % 1000 = 1"), "ov", None)
      }
      val joins = rowmatchJoins(lastJoin)
      assert(joins.exists(_.spec.kind == io.rowmatch.spark.join.JoinSpec.Kind.EXISTENCE), planText(lastJoin))
      assert(spills(lastJoin) > 0, s"no spill in\n${planText(lastJoin)}")
      assert(chunks(lastJoin) > 0, s"no build chunks in\n${planText(lastJoin)}")
      assert(SpillFile.openFiles() == 0, "a spill file was left behind")
    }
  }

  for (jt <- Seq("left_semi", "left_anti"); cond <- Seq(false, true)) {
    test(s"$jt join from a sort-merge join, the skewed side left and smaller than the right" +
      s"${if (cond) ", residual condition" else ""}: its rows hashed by build chunks, each kept or dropped once") {
      // No hint: Spark plans a sort-merge join and Rowmatch hashes the side the statistics say is smaller.
      val s = spark.range(0, SkewRows + 20000, 1, 2).selectExpr(
        s"case when id % 4000 = 7 then null when id < $SkewRows then 1 else id end as k", "id as sv")
      val o = spark.range(0, 3 * SkewRows, 1, 2).selectExpr(
        s"case when id % 1000000 = 3 then 1 when id % 997 = 5 then null when id % 500 = 0 then $SkewRows + id / 400 " +
          s"else id + 2 * $SkewRows end as k", "id as ov", "concat('o-', cast(id as string)) as os", "id * 3 as ow")
      val on = s("k") === o("k")
      checkJoin(SortMerge, extraConf = grant) {
        perRow(s.join(o, if (cond) on && (s("sv") + o("ov")) % 3 =!= 0 else on, jt), "sv", None)
      }
      val joins = rowmatchJoins(lastJoin)
      assert(joins.exists(_.spec.buildLeft), s"the left side was not hashed in\n${planText(lastJoin)}")
      assert(spills(lastJoin) > 0, s"no spill in\n${planText(lastJoin)}")
      assert(chunks(lastJoin) > 0, s"no build chunks in\n${planText(lastJoin)}")
      assert(SpillFile.openFiles() == 0, "a spill file was left behind")
    }
  }

  test("the skewed side fits without the cap: no spill, no chunks (the in-memory path)") {
    checkJoin(ShuffledHash)(query("full_outer", skewedLeft = false, cond = true))
    assert(spills(lastJoin) == 0 && chunks(lastJoin) == 0)
  }

  test("a task failing in a chunk pass leaves no spill file and no Arrow memory, and its retry answers") {
    val faults = Seq(TestFaults.FAIL_AFTER_BATCHES -> "0", TestFaults.OPERATOR -> "RowmatchHashJoin build chunks")
    checkJoin(ShuffledHash, extraConf = grant ++ faults)(query("left_outer", skewedLeft = false, cond = true))
    org.apache.spark.ListenerBusDrain(spark.sparkContext)
    assert(failures.toArray.exists(_.toString.contains("build chunks failed on purpose")),
      s"no injected failure in a chunk pass: ${failures.toArray.mkString("; ")}")
    assert(chunks(lastJoin) > 0)
    assert(SpillFile.openFiles() == 0)
  }
}
