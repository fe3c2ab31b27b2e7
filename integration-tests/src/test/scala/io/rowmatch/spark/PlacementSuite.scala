package io.rowmatch.spark

import java.io.File
import java.nio.file.Files

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, SortMergeJoinExec}
import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._

import io.rowmatch.spark.rules.RowmatchExplainInfo

/**
 * The placement policy (rules/PlacementPolicy): a group of Rowmatch operators that takes over less work than
 * the row/Arrow transitions it adds stays vanilla, says why, and the settings restore the replacement. Every
 * answer is compared with the plugin off. Inputs: local relations and ranges (row-based, so each replacement
 * reading them adds a rows->Arrow transition) and a Parquet file (columnar: reading it costs none).
 */
class PlacementSuite extends RowmatchQueryTest {
  private val On = "spark.rowmatch.placement.enabled" -> "true"
  private val MinWork = "spark.rowmatch.placement.minWorkPerTransition"

  private lazy val dir: File = Files.createTempDirectory("rowmatch-placement").toFile

  private lazy val parquetPath: String = {
    val p = new File(dir, "facts").getAbsolutePath
    spark.range(0, 5000).select(col("id").as("k"), (col("id") % 97).as("g"), (col("id") * 3).as("v"))
      .repartition(3).write.parquet(p)
    p
  }

  /** Many rows per key g (23 keys), an int q and a date d with nulls, and ties within a key. */
  private lazy val bandPath: String = {
    val p = new File(dir, "band").getAbsolutePath
    spark.range(0, 2000).select((col("id") % 23).cast("int").as("g"), col("id"),
      when(col("id") % 17 === 0, lit(null)).otherwise((col("id") * 7919 % 101).cast("int")).as("q"),
      when(col("id") % 13 === 0, lit(null))
        .otherwise(date_add(lit("2020-01-01").cast("date"), (col("id") * 31 % 50).cast("int"))).as("d"))
      .repartition(3).write.parquet(p)
    p
  }

  override protected def afterAll(): Unit = {
    try {
      def delete(f: File): Unit = {
        Option(f.listFiles()).foreach(_.foreach(delete))
        f.delete()
      }
      delete(dir)
    } finally super.afterAll()
  }

  /** Row-based inputs: a broadcast build side of 40 rows (a null key, duplicates) and a range probe side. */
  private def probe: DataFrame = spark.range(0, 3000).select((col("id") % 50).as("k"), col("id").as("pv"))

  private def build: DataFrame = {
    import spark.implicits._
    (Seq[(java.lang.Long, String)]((null, "none")) ++ (0L until 39L).map(i => (java.lang.Long.valueOf(i % 30), s"b$i")))
      .toDF("k", "bv")
  }

  private def loneJoin: DataFrame = probe.join(broadcast(build), Seq("k"))

  /** Plugin off and on (with `conf`): equal rows; returns the plugin-on frame, collected. A new frame per run. */
  private def compare(conf: (String, String)*)(query: => DataFrame): DataFrame = withConf(conf: _*) {
    val expected = withConf("spark.rowmatch.enabled" -> "false")(query.collect().toSeq)
    val df = query
    val actual = df.collect().toSeq
    RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 0.0, planText(df))
    df
  }

  private def rowmatchNodes(df: DataFrame): Seq[String] =
    executedNodes(df).map(_.nodeName).filter(_.startsWith("Rowmatch"))

  private def placementReasons(df: DataFrame): Seq[String] = fallbackReasons(df).filter(_.contains("placement:"))

  test("a lone join between row operators stays vanilla, with the reason in the fallbacks and in EXPLAIN") {
    val df = compare(On)(loneJoin)
    assert(rowmatchNodes(df).isEmpty, planText(df))
    assert(executedNodes(df).exists(_.isInstanceOf[BroadcastHashJoinExec]), planText(df))
    val reasons = placementReasons(df)
    // The join reads two row-based inputs (probe and broadcast) and its parent reads rows: three transitions.
    assert(reasons.exists(r => r.startsWith("BroadcastHashJoin: ") && r.contains("RowmatchHashJoin")
      && r.contains("1 unit(s) of work for 3 row/Arrow transition(s) (2 rows->Arrow, 1 Arrow->rows)")
      && r.contains(MinWork + "=1") && r.contains("spark.rowmatch.placement.enabled=false")), planText(df))
    val explain = new RowmatchExplainInfo().generateExtendedInfo(df.queryExecution.executedPlan)
    assert(explain.contains("Rowmatch operators (0)"), explain)
    assert(explain.contains("BroadcastHashJoin: placement: "), explain)
  }

  test("spark.rowmatch.placement.enabled=false, or a minimum of 0, restores the replacement") {
    for (conf <- Seq(Seq("spark.rowmatch.placement.enabled" -> "false"), Seq(On, MinWork -> "0"))) {
      val df = compare(conf: _*)(loneJoin)
      assert(rowmatchNodes(df).contains("RowmatchHashJoin"), s"$conf\n${planText(df)}")
      assert(placementReasons(df).isEmpty, s"$conf\n${planText(df)}")
    }
  }

  test("a lone aggregation between row operators (over a vanilla window, no shuffle) stays vanilla") {
    // The window's output is partitioned by k already: partial and final aggregate with no shuffle between,
    // one aggregation's work for a rows->Arrow and an Arrow->rows transition.
    val w = Window.partitionBy("k").orderBy("pv")
    def q = probe.withColumn("r", row_number().over(w)).groupBy("k").agg(max("r").as("m"), sum("pv").as("s"))
    val off = compare("spark.rowmatch.placement.enabled" -> "false")(q)
    assert(rowmatchNodes(off).count(_ == "RowmatchHashAggregate") == 2, planText(off))
    val on = compare(On)(q)
    // The window's sort is Rowmatch's group-wise one: a row operator between rows, no transition.
    assert(rowmatchNodes(on) == Seq("RowmatchWindowSort"), planText(on))
    assert(placementReasons(on).exists(r => r.startsWith("HashAggregate: ")
      && r.contains("1 unit(s) of work for 2 row/Arrow transition(s) (1 rows->Arrow, 1 Arrow->rows)")), planText(on))
  }

  test("an aggregation over rows whose partial, Arrow shuffle and final outweigh its two transitions runs") {
    def q = probe.groupBy("k").agg(sum("pv").as("s"), count(lit(1)).as("n"))
    val df = compare(On)(q)
    assert(rowmatchNodes(df).count(_ == "RowmatchHashAggregate") == 2, planText(df))
    assert(rowmatchNodes(df).contains("RowmatchShuffleExchange"), planText(df))
    assert(placementReasons(df).isEmpty, planText(df))
    // Three units of work for two transitions: a minimum of 2 per transition keeps it vanilla, saying so.
    val strict = compare(On, MinWork -> "2")(q)
    assert(rowmatchNodes(strict).isEmpty, planText(strict))
    assert(placementReasons(strict).exists(r => r.contains("2x RowmatchHashAggregate")
      && r.contains("3 unit(s) of work for 2 row/Arrow transition(s)")), planText(strict))
  }

  test("joins and aggregates reading a columnar scan add no input transition and stay Rowmatch") {
    val facts = spark.read.parquet(parquetPath)
    val dims = spark.read.parquet(parquetPath).filter(col("k") < 700).select(col("k"), col("g").as("dg"))
    val joined = compare(On)(facts.join(broadcast(dims), Seq("k")))
    assert(rowmatchNodes(joined).contains("RowmatchHashJoin"), planText(joined))
    assert(placementReasons(joined).isEmpty, planText(joined))
    val shuffled = compare(On, "spark.sql.autoBroadcastJoinThreshold" -> "-1")(
      facts.join(dims, Seq("k")).groupBy("dg").agg(max("v").as("m")))
    assert(rowmatchNodes(shuffled).contains("RowmatchHashJoin"), planText(shuffled))
    assert(rowmatchNodes(shuffled).count(_ == "RowmatchHashAggregate") == 2, planText(shuffled))
    assert(placementReasons(shuffled).isEmpty, planText(shuffled))
  }

  test("a sort-merge join with a condition besides its keys stays vanilla unless conditionalSortMergeJoin") {
    val smj = Seq(On, "spark.sql.autoBroadcastJoinThreshold" -> "-1", "spark.sql.join.preferSortMergeJoin" -> "true")
    val facts = spark.read.parquet(parquetPath)
    def q = facts.as("a").join(facts.as("b"), col("a.g") === col("b.g") && col("a.v") < col("b.k"))
      .groupBy(col("a.g")).agg(count(lit(1)).as("n"))
    val kept = compare(smj: _*)(q)
    assert(executedNodes(kept).exists(_.isInstanceOf[SortMergeJoinExec]), planText(kept))
    assert(!rowmatchNodes(kept).contains("RowmatchHashJoin"), planText(kept))
    assert(placementReasons(kept).exists(r => r.startsWith("SortMergeJoin: placement: a sort-merge inner join with " +
      "the condition") && r.contains("spark.rowmatch.placement.conditionalSortMergeJoin=true")), planText(kept))
    for (on <- Seq("spark.rowmatch.placement.conditionalSortMergeJoin" -> "true",
        "spark.rowmatch.placement.enabled" -> "false")) {
      val replaced = compare(smj :+ on: _*)(q)
      assert(rowmatchNodes(replaced).contains("RowmatchHashJoin"), s"$on\n${planText(replaced)}")
    }
    // A semi join only asks whether a pair passes: replaced, as is a join without a condition.
    val semi = compare(smj: _*)(facts.as("a").join(facts.as("b"), col("a.g") === col("b.g") && col("a.v") < col("b.k"),
      "left_semi").groupBy(col("g")).agg(count(lit(1))))
    assert(rowmatchNodes(semi).contains("RowmatchHashJoin"), planText(semi))
    val plain = compare(smj: _*)(facts.as("a").join(facts.as("b"), Seq("g")).groupBy(col("g")).agg(count(lit(1))))
    assert(rowmatchNodes(plain).contains("RowmatchHashJoin"), planText(plain))
  }

  test("an inner sort-merge join comparing an int or date column of each side runs (each row meets its band)") {
    val smj = Seq(On, "spark.sql.autoBroadcastJoinThreshold" -> "-1", "spark.sql.join.preferSortMergeJoin" -> "true")
    val t = spark.read.parquet(bandPath)
    val ops = Seq[(String, (Column, Column) => Column)]("<" -> (_ < _), "<=" -> (_ <= _), ">" -> (_ > _),
      ">=" -> (_ >= _))
    // TPC-DS q72's shape (inv_quantity_on_hand < cs_quantity): either side's column first, ints and dates with nulls,
    // another conjunct beside the comparison.
    for ((name, op) <- ops; c <- Seq("q", "d"); flip <- Seq(false, true)) {
      val cmp = if (flip) op(col(s"b.$c"), col(s"a.$c")) else op(col(s"a.$c"), col(s"b.$c"))
      val df = compare(smj: _*)(t.as("a").join(t.as("b"), col("a.g") === col("b.g") && cmp && col("a.id") =!= col("b.id"))
        .groupBy(col("a.g")).agg(count(lit(1)).as("n"), sum(col("b.id")).as("s"), max(col("a.id")).as("m")))
      val what = s"a.$c $name b.$c${if (flip) " (flipped)" else ""}"
      assert(rowmatchNodes(df).contains("RowmatchHashJoin"), s"$what\n${planText(df)}")
      assert(!executedNodes(df).exists(_.isInstanceOf[SortMergeJoinExec]), s"$what\n${planText(df)}")
      assert(placementReasons(df).isEmpty, s"$what\n${planText(df)}")
    }
    // A left outer join with the same condition stays Spark's (only inner joins meet their band).
    val outer = compare(smj: _*)(t.as("a").join(t.as("b"), col("a.g") === col("b.g") && col("a.q") < col("b.q"),
      "left_outer").groupBy(col("a.g")).agg(count(lit(1)).as("n")))
    assert(executedNodes(outer).exists(_.isInstanceOf[SortMergeJoinExec]), planText(outer))
  }

  test("a conditional sort-merge join against a side that holds each key once (an aggregate by the keys) runs") {
    val smj = Seq(On, "spark.sql.autoBroadcastJoinThreshold" -> "-1", "spark.sql.join.preferSortMergeJoin" -> "true")
    val facts = spark.read.parquet(parquetPath)
    val perKey = facts.groupBy(col("g").as("ag")).agg(avg("v").as("av"), max("k").as("mk"))
    // TPC-H q20's and TPC-DS q1's shape: each row meets at most one aggregate row, so the condition is one test per
    // row. Either side, inner and left outer; then the same aggregate by (g, parity), two rows per key: kept.
    for ((name, q) <- Seq[(String, () => DataFrame)](
        "aggregate on the right" -> (() => facts.join(perKey, col("g") === col("ag") && col("v") > col("av"))),
        "aggregate on the left" -> (() => perKey.join(facts, col("ag") === col("g") && col("k") < col("mk"))),
        "left outer" -> (() => facts.join(perKey, col("g") === col("ag") && col("v") > col("av"), "left_outer")))) {
      // Reading av keeps Spark from dropping the outer join (its right side is distinct and otherwise unread).
      val df = compare(smj: _*)(q().groupBy(col("g")).agg(count(lit(1)).as("n"), sum(col("k")).as("s"), max(col("av"))))
      assert(rowmatchNodes(df).contains("RowmatchHashJoin"), s"$name\n${planText(df)}")
      assert(!executedNodes(df).exists(_.isInstanceOf[SortMergeJoinExec]), s"$name\n${planText(df)}")
      assert(!placementReasons(df).exists(_.contains("tests every pair")), s"$name\n${planText(df)}")
    }
    val twoPerKey = facts.groupBy(col("g").as("ag"), (col("v") % 2).as("par")).agg(avg("v").as("av"))
    val kept = compare(smj: _*)(facts.join(twoPerKey, col("g") === col("ag") && col("v") > col("av"))
      .groupBy(col("g")).agg(count(lit(1)).as("n")))
    assert(executedNodes(kept).exists(_.isInstanceOf[SortMergeJoinExec]), planText(kept))
    assert(placementReasons(kept).exists(_.contains("tests every pair")), planText(kept))
  }

  test("broadcast joins streaming a vanilla sort-merge join's rows stay in its stage; the aggregation above runs") {
    val smj = Seq(On, "spark.sql.autoBroadcastJoinThreshold" -> "-1", "spark.sql.join.preferSortMergeJoin" -> "true")
    val facts = spark.read.parquet(parquetPath)
    val dims = spark.range(0, 97).select(col("id").as("dk"), (col("id") % 7).as("dc"))
    // (a ⋈ b on g with a condition) ⋈ dims ⋈ dims again (through a filter), grouped: q72's shape.
    def q = facts.as("a").join(facts.as("b"), col("a.g") === col("b.g") && col("a.v") < col("b.k"))
      .join(broadcast(dims.as("d1")), col("a.g") === col("d1.dk"))
      .filter(col("d1.dc") =!= 3)
      .join(broadcast(dims.as("d2")), col("b.g") === col("d2.dk"), "left_outer")
      .groupBy(col("d1.dc")).agg(count(lit(1)).as("n"), max(col("d2.dc")).as("m"))
    val kept = compare(smj: _*)(q)
    val bhjs = executedNodes(kept).collect { case j: BroadcastHashJoinExec => j }
    assert(bhjs.size == 2 && executedNodes(kept).exists(_.isInstanceOf[SortMergeJoinExec]), planText(kept))
    assert(!rowmatchNodes(kept).contains("RowmatchHashJoin"), planText(kept))
    assert(rowmatchNodes(kept).count(_ == "RowmatchHashAggregate") == 2, planText(kept))
    assert(placementReasons(kept).count(r => r.startsWith("BroadcastHashJoin: placement: a broadcast join " +
      "streaming the rows of Spark's SortMergeJoin")) == 2, planText(kept))
    // Once the sort-merge join is replaced, the broadcast joins over it are too.
    val replaced = compare(smj :+ ("spark.rowmatch.placement.conditionalSortMergeJoin" -> "true"): _*)(q)
    assert(rowmatchNodes(replaced).count(_ == "RowmatchHashJoin") == 3, planText(replaced))
    // A broadcast join over a scan still runs, as does one whose streamed rows come from no join.
    val overScan = compare(On)(facts.join(broadcast(dims), col("g") === col("dk")).groupBy("dc").agg(count(lit(1))))
    assert(rowmatchNodes(overScan).contains("RowmatchHashJoin"), planText(overScan))
  }

  test("a broadcast join kept vanilla stays so when AQE turns the join under it into a broadcast join") {
    // Planned: a conditional sort-merge join (the aggregate's estimate is the file's size), a broadcast join of
    // dims over it (kept vanilla, its broadcast built as Spark's). At run time the aggregate is small: AQE makes the
    // lower join a broadcast join, and the upper one would now be replaceable, over a Spark broadcast already built.
    val conf = Seq(On, "spark.sql.autoBroadcastJoinThreshold" -> "20000", "spark.sql.join.preferSortMergeJoin" -> "true")
    val facts = spark.read.parquet(parquetPath)
    val dims = spark.range(0, 97).select(col("id").as("dk"), (col("id") % 7).as("dc"))
    // Two aggregate rows per key (grouped by g and a parity), so the conditional join is kept vanilla when planned.
    def q = facts.join(facts.groupBy(col("g").as("ag"), (col("v") % 2).as("par")).agg(avg("v").as("av")),
        col("g") === col("ag") && col("v") > col("av"))
      .join(broadcast(dims), col("g") === col("dk"))
      .groupBy(col("dc")).agg(count(lit(1)).as("n"))
    val initial = withConf(conf: _*)(q.queryExecution.executedPlan match {
      case a: org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec => a.initialPlan
      case p => p
    })
    assert(initial.exists(_.isInstanceOf[SortMergeJoinExec]), s"the conditional join is not planned as a sort-merge join\n$initial")
    val df = compare(conf: _*)(q)
    val nodes = executedNodes(df)
    assert(!nodes.exists(_.isInstanceOf[SortMergeJoinExec]), s"AQE kept the sort-merge join\n${planText(df)}")
    // The upper join is Spark's over Spark's broadcast, saying why; the lower one (over an Arrow broadcast) is ours.
    assert(nodes.count(_.isInstanceOf[BroadcastHashJoinExec]) == 1, planText(df))
    assert(rowmatchNodes(df).count(_ == "RowmatchHashJoin") == 1, planText(df))
    assert(placementReasons(df).exists(_.startsWith("BroadcastHashJoin: placement: its build side is Spark's broadcast")),
      planText(df))
  }

  test("the decision holds on empty and one-row inputs") {
    for (n <- Seq(0, 1, 64)) {
      def q = spark.range(0, n).select((col("id") % 50).as("k"), col("id").as("pv")).join(broadcast(build), Seq("k"))
      val df = compare(On)(q)
      assert(rowmatchNodes(df).isEmpty, s"n=$n\n${planText(df)}")
    }
  }
}
