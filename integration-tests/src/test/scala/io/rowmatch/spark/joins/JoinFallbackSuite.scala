package io.rowmatch.spark.joins

import org.apache.spark.SparkException
import org.apache.spark.sql.execution.joins.SortMergeJoinExec
import org.apache.spark.sql.functions._

import io.rowmatch.spark.join.{BroadcastJoinTables, JoinSpec}

/**
 * What stays vanilla and why, the settings, the memory limit, failing tasks, and the broadcast build side
 * being hashed once per executor rather than once per task.
 */
class JoinFallbackSuite extends JoinQueryTest {

  private lazy val left = JoinData.intKeys(spark, 300, 12, seed = 21).toDF("k", "lv")
  private lazy val right = JoinData.intKeys(spark, 200, 15, seed = 22).toDF("k", "rv")

  /** Runs with the plugin off and on; equal results; returns the plugin-on frame (already collected). */
  private def compare(strategy: Strategy, extraConf: (String, String)*)(query: => org.apache.spark.sql.DataFrame) = {
    withConf(strategy.conf ++ extraConf: _*) {
      val expected = withConf("spark.rowmatch.enabled" -> "false")(query.collect().toSeq)
      val df = query
      val actual = df.collect().toSeq
      assertSameRows(expected, actual, planText(df))
      df
    }
  }

  test("spark.rowmatch.join.enabled=false keeps every join vanilla and says so") {
    for (st <- strategies) {
      val df = compare(st, "spark.rowmatch.join.enabled" -> "false")(left.join(right, Seq("k")))
      assert(rowmatchJoins(df).isEmpty, planText(df))
      assert(fallbackReasons(df).exists(_.contains("spark.rowmatch.join.enabled=false")), planText(df))
    }
  }

  test("spark.rowmatch.join.replaceSortMergeJoin=false keeps sort-merge joins only") {
    val off = "spark.rowmatch.join.replaceSortMergeJoin" -> "false"
    val smj = compare(SortMerge, off)(left.join(right, Seq("k")))
    assert(rowmatchJoins(smj).isEmpty, planText(smj))
    assert(executedNodes(smj).exists(_.isInstanceOf[SortMergeJoinExec]), planText(smj))
    assert(fallbackReasons(smj).exists(_.contains("spark.rowmatch.join.replaceSortMergeJoin=false")), planText(smj))
    val bhj = compare(Broadcast, off)(left.join(right, Seq("k")))
    assert(rowmatchJoins(bhj).map(_.replaced) == Seq("BroadcastHashJoin"), planText(bhj))
  }

  test("a computed key of a type the core does not compare stays vanilla with its reason") {
    for (st <- strategies) {
      val df = compare(st)(left.join(right, make_ym_interval(left("k"), lit(0)) === make_ym_interval(right("k"), lit(0))))
      assert(rowmatchJoins(df).isEmpty, planText(df))
      assert(fallbackReasons(df).exists(_.contains("key type interval year to month is not supported")), planText(df))
    }
  }

  test("a column type the join does not carry stays vanilla with its reason") {
    val withInterval = right.withColumn("iv", make_ym_interval(col("rv").cast("int"), lit(0)))
    val df = compare(ShuffledHash)(left.join(withInterval, Seq("k")))
    assert(rowmatchJoins(df).isEmpty, planText(df))
    assert(fallbackReasons(df).exists(_.contains("column iv of type interval year to month")), planText(df))
  }

  test("a join whose output order a parent merge join relies on stays vanilla") {
    // The outer join cannot be replaced (an interval column), so it stays a sort-merge join that reads the
    // inner join's ordering without a sort of its own; the inner join must then keep that ordering.
    val third = JoinData.intKeys(spark, 100, 12, seed = 23).toDF("k", "tv")
      .withColumn("iv", make_ym_interval(col("tv").cast("int"), lit(0)))
    val df = compare(SortMerge)(left.join(right, Seq("k")).join(third, Seq("k")))
    val reasons = fallbackReasons(df)
    if (rowmatchJoins(df).isEmpty) {
      assert(reasons.exists(_.contains("relies on the join's output ordering")), planText(df))
    }
    assert(executedNodes(df).count(_.isInstanceOf[SortMergeJoinExec]) >= 1, planText(df))
  }

  test("a build side Spark's statistics show over spark.rowmatch.memory.limit stays vanilla with its reason") {
    // Hex digests hardly compress: even the compressed shuffle bytes exceed the limit.
    val big = spark.range(0, 40000, 1, 2).select((col("id") % 1000).cast("int").as("k"),
      sha2(col("id").cast("string"), 256).as("payload"))
    val probe = big.select(col("k"), col("payload").as("payload2"))
    for (st <- strategies) {
      val df = compare(st, "spark.rowmatch.memory.limit" -> "256k")(
        probe.join(if (st == Broadcast) big.hint("broadcast") else big, Seq("k")))
      assert(rowmatchJoins(df).isEmpty, planText(df))
      assert(fallbackReasons(df).exists(r => r.contains("build side estimated at") &&
        r.contains("exceeds spark.rowmatch.memory.limit=262144")), planText(df))
      assertNoArrowMemoryHeld()
    }
  }

  test("a build side holding a join is not refused on the optimizer's product of its inputs' sizes") {
    // Without CBO Spark sizes an inner join as the product of its inputs' sizes: two 3000-row ranges joined
    // are "hundreds of MB" for 3000 rows (TPC-DS q10's semi join build side came out at 11 GB per task). The
    // runtime statistics of the materialized stages are the figure to go by, and they are far below the limit.
    val a = spark.range(0, 3000, 1, 2).select((col("id") % 500).cast("int").as("k"), col("id").as("av"))
    val b = spark.range(0, 3000, 1, 2).select(col("id").cast("int").as("k"), (col("id") * 2).as("bv"))
    val probe = JoinData.intKeys(spark, 700, 600, seed = 24).toDF("k", "lv")
    for (joinType <- Seq("left_semi", "left_outer", "left_anti")) {
      val df = compare(SortMerge, "spark.rowmatch.memory.limit" -> "1m")(probe.join(a.join(b, Seq("k")), Seq("k"), joinType))
      assert(!fallbackReasons(df).exists(_.contains("build side estimated at")), s"$joinType\n${planText(df)}")
      // The join over the probe side (its build side the inner join) ran as Rowmatch, replacing the sort-merge join.
      assert(rowmatchJoins(df).exists(j => j.replaced == "SortMergeJoin" && j.spec.kind != JoinSpec.Kind.INNER),
        s"$joinType\n${planText(df)}")
      assertNoArrowMemoryHeld()
    }
  }

  test("a build side over spark.rowmatch.memory.limit that statistics miss spills and answers as vanilla") {
    // A payload that compresses a hundredfold: the shuffle's bytes look small, the Arrow build side is not.
    // The join finds out at run time and becomes a grace hash join (both sides partitioned to disk).
    val big = spark.range(0, 20000, 1, 2).select((col("id") % 1000).cast("int").as("k"),
      concat(lit("x" * 1000), col("id").cast("string")).as("payload"))
    val probe = big.select(col("k"), col("payload").as("payload2"))
    for (st <- Seq(ShuffledHash, SortMerge)) {
      checkJoin(st, extraConf = Seq("spark.rowmatch.memory.limit" -> "2m")) {
        probe.join(big, Seq("k")).selectExpr("k", "length(payload)", "substring(payload2, 990)")
      }
      assert(rowmatchJoins(lastJoin).map(_.metrics("numSpills").value).sum > 0, planText(lastJoin))
      assertNoArrowMemoryHeld()
    }
  }

  test("a task failing inside the join releases every buffer") {
    // The condition reads both sides, so it is evaluated by the join itself (not pushed below it).
    val boom = udf((v: Long) => if (v % 97 == 0) throw new IllegalStateException("boom") else true)
    for (st <- strategies) {
      withConf(st.conf: _*) {
        val e = intercept[SparkException](left.join(right, left("k") === right("k") && boom(left("lv") + right("rv")))
          .collect())
        assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists(
          t => String.valueOf(t.getMessage).contains("boom")), e)
      }
      assertNoArrowMemoryHeld()
    }
  }

  test("a semi join keeps one build row per key; an inner join of the same broadcast still gets every row") {
    // 30 rows per key on the build side. The semi and anti joins' build side holds one row per key (all they
    // need); the inner join reads only k from the build side too, so all three share one broadcast exchange,
    // and the inner join must not be handed the thinned build side (it would lose 29 of every 30 rows).
    val build = spark.range(0, 3000, 1, 2).select((col("id") % 100).as("k"), col("id").as("rv"))
    val probe = spark.range(0, 2000, 1, 4).select((col("id") % 150).as("k"), col("id").as("v"))
    // Spark's broadcast (its hash relation yields one row per key cheaply) and the Arrow broadcast (every row:
    // one table serves the three joins).
    for ((arrow, tables) <- Seq(false -> 2, true -> 1); keyed <- Seq[org.apache.spark.sql.DataFrame => org.apache.spark.sql.DataFrame](
      df => df, // one long key: LongHashedRelation
      df => df.withColumn("k", concat(lit("s"), col("k").cast("string"))))) { // a string key: UnsafeHashedRelation
      val b = keyed(build).hint("broadcast")
      val p = keyed(probe)
      val builds = BroadcastJoinTables.builds()
      val rows = checkJoin(Broadcast, extraConf = Seq("spark.rowmatch.broadcast.enabled" -> arrow.toString)) {
        p.join(b, Seq("k"), "left_semi").select(col("k"), col("v"), lit(-1L).as("rv"))
          .union(p.join(b, Seq("k")).select(col("k"), col("v"), lit(0L).as("rv")))
          .union(p.join(b, Seq("k"), "left_anti").select(col("k"), col("v"), lit(-2L).as("rv")))
      }
      // Probe keys 0..149 (14 rows each below 50, 13 above), build keys 0..99: 1350 probe rows match.
      assert(rows.size == 1350 + 1350 * 30 + 650, s"semi + inner + anti rows: ${rows.size}")
      // Three broadcasts would make 3 build sides; one shared broadcast with one table for all would make 1.
      assert(BroadcastJoinTables.builds() - builds == tables, s"arrow broadcast $arrow: one shared broadcast; with " +
        "Spark's, one build side for the semi and anti joins (one row per key) and one for the inner join")
      assertNoArrowMemoryHeld()
    }
  }

  test("a broadcast build side is hashed once per executor and shared by the tasks probing it") {
    val probe = spark.range(0, 20000, 1, 8).select((col("id") % 500).cast("int").as("k"), col("id").as("v"))
    val builds = BroadcastJoinTables.builds()
    val acquires = BroadcastJoinTables.acquires()
    val df = checkJoin(Broadcast)(probe.join(right.hint("broadcast"), Seq("k")))
    assert(BroadcastJoinTables.acquires() - acquires >= 8, "every probe partition takes the build side")
    assert(BroadcastJoinTables.builds() - builds == 1, "the broadcast was hashed more than once")
  }
}
