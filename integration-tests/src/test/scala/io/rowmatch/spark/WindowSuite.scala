package io.rowmatch.spark

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{SortExec, SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.execution.window.{Partial, WindowExec, WindowGroupLimitExec}

import io.rowmatch.spark.config.RowmatchConf
import io.rowmatch.spark.testing.TestFaults
import io.rowmatch.spark.window.{RowmatchWindowGroupLimitExec, RowmatchWindowSortExec}

/**
 * Windows. `rank() / dense_rank() / row_number() <= k` per partition: Spark plans a partial WindowGroupLimit over a
 * sort before the shuffle; Rowmatch runs it without the sort (RowmatchWindowGroupLimit). A window with PARTITION BY
 * keys reads its input group by group: Rowmatch groups the rows by hash and sorts each group alone
 * (RowmatchWindowSort) instead of Spark's sort of the whole task. Answers equal vanilla Spark's with partition and
 * order keys of every kind (nulls, NaN payloads, -0.0, empty and multibyte strings, decimal(38) sums, ties), over a
 * scan and over a Rowmatch aggregate (TPC-DS q47's and q67's shapes), with no partition keys, and with buffers so
 * small the operators emit after every row or hand the rows to Spark's sorter, and when Spark refuses the task memory
 * for the rows they hold; each asserts the Rowmatch operator ran.
 */
class WindowSuite extends RowmatchQueryTest {
  // Test faults on: the test-only cap on the task memory Spark grants (spark.rowmatch.test.taskMemoryGrant).
  override protected lazy val spark = rowmatchSession("local[2]", TestFaults.ENABLED -> "true")

  private var dir: File = _

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    dir = Files.createTempDirectory("rowmatch-group-limit").toFile
    // 3000 rows in 3 files; keys from independent hashes of the id, so partitions and orders vary apart.
    spark.range(0, 3000, 1, 3).selectExpr(
      "id",
      "element_at(array('', 'a', 'é', '日本', 'ab', null), cast(pmod(hash(id, 1), 6) + 1 as int)) as p",
      "cast(pmod(hash(id, 2), 5) as int) as pi",
      "if(pmod(hash(id, 3), 11) = 0, null, cast(pmod(hash(id, 4), 40) as decimal(38, 2)) / 3) as o",
      "element_at(array(0.0D, -0.0D, 1.5D, cast('NaN' as double), -2.25D, double('Infinity'), null, 7.0D)," +
        " cast(pmod(hash(id, 5), 8) + 1 as int)) as d",
      "element_at(array('', 'x', 'é', '日本語', 'xy', null), cast(pmod(hash(id, 6), 6) + 1 as int)) as s",
      "cast(pmod(hash(id, 7), 1000) as decimal(7, 2)) as price")
      .write.parquet(new File(dir, "t").getPath)
    spark.read.parquet(new File(dir, "t").getPath).createOrReplaceTempView("t")
  }

  override protected def afterAll(): Unit = {
    try FileUtils.deleteDirectory(dir) finally super.afterAll()
  }

  /** Vanilla's answer, a RowmatchWindowGroupLimit ran, no vanilla partial limit left; the executed Rowmatch nodes. */
  private def checkLimit(sql: String): Seq[RowmatchWindowGroupLimitExec] = {
    checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchWindowGroupLimit"))
    val df = spark.sql(sql)
    df.collect()
    val nodes = executedNodes(df)
    assert(!nodes.exists { case w: WindowGroupLimitExec => w.mode == Partial; case _ => false }, planText(df))
    nodes.collect { case w: RowmatchWindowGroupLimitExec => w }
  }

  private def ranked(fn: String, order: String, limit: String, partition: String = "p"): String =
    s"select * from (select id, p, pi, o, d, s, $fn() over (partition by $partition order by $order) as r from t) " +
      s"where r $limit"

  test("rank over a decimal with nulls and ties, partitioned by a string with empty, multibyte and null keys") {
    checkLimit(ranked("rank", "o desc nulls last", "<= 3"))
    checkLimit(ranked("rank", "o asc nulls first", "< 2"))
  }

  test("dense_rank over doubles (NaN payloads, -0.0, infinity, nulls)") {
    checkLimit(ranked("dense_rank", "d", "<= 2"))
    checkLimit(ranked("dense_rank", "d desc nulls first", "= 1", partition = "pi"))
  }

  test("row_number with a unique tiebreak, several order keys and two partition keys") {
    checkLimit(ranked("row_number", "s desc, o, id", "<= 4", partition = "p, pi"))
    checkLimit(ranked("row_number", "d nulls last, id desc", "= 1"))
  }

  test("rank over an aggregate's decimal(38) sums grouped by several keys (TPC-DS q67's shape)") {
    val q = "select * from (select p, pi, s, sum(price * 3) as total, " +
      "rank() over (partition by p order by sum(price * 3) desc) as rk from t group by p, pi, s) where rk <= 4"
    checkLimit(q)
    val df = spark.sql(q)
    df.collect()
    assert(executedNodes(df).exists(_.nodeName == "RowmatchHashAggregate"), planText(df))
  }

  test("no partition keys: the whole task's input is one group") {
    checkLimit("select * from (select id, o, rank() over (order by o desc nulls last) as r from t) where r <= 7")
  }

  test("a buffer smaller than one row: emitted after every row, the answer unchanged") {
    withConf(RowmatchConf.WINDOW_GROUP_LIMIT_BUFFER -> "0") {
      val nodes = checkLimit(ranked("rank", "o desc", "<= 2"))
      assert(nodes.map(_.metrics("numFlushes").value).sum > 0)
      assert(nodes.map(_.metrics("numOutputRows").value).sum > 100)
    }
  }

  test("metrics: rows out of the partial limit, at most the groups x limit plus ties, and the groups") {
    val df = spark.sql(ranked("row_number", "o, id", "<= 2"))
    df.collect()
    val limits = executedNodes(df).collect { case w: RowmatchWindowGroupLimitExec => w }
    assert(limits.size == 1, planText(df))
    val out = limits.head.metrics("numOutputRows").value
    val groups = limits.head.metrics("numGroups").value
    // 6 partition keys (null among them) in each of 3 scan tasks: at most 18 groups, 2 rows each.
    assert(groups >= 6 && groups <= 18, s"groups $groups")
    assert(out == groups * 2, s"out $out groups $groups")
    assert(limits.head.metrics("numFlushes").value == 0)
  }

  /** Vanilla's answer, a RowmatchWindowSort ran and no local sort remains under a Window; the Rowmatch nodes. */
  private def checkWindowSort(sql: String): Seq[RowmatchWindowSortExec] = {
    checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchWindowSort"))
    val df = spark.sql(sql)
    df.collect()
    val nodes = executedNodes(df)
    assert(!nodes.exists(sortUnderWindow), planText(df))
    nodes.collect { case s: RowmatchWindowSortExec => s }
  }

  /** A Window reading Spark's local sort (in or out of a codegen stage). */
  private def sortUnderWindow(node: SparkPlan): Boolean = node match {
    case w: WindowExec => w.child match {
      case _: SortExec => true
      case c: WholeStageCodegenExec => c.child.isInstanceOf[SortExec]
      case _ => false
    }
    case _ => false
  }

  test("window sort: avg over partitions of string keys (empty, multibyte, null), no order within them") {
    checkWindowSort("select id, p, s, o, avg(o) over (partition by p, s) as a, count(*) over (partition by p, s) as n " +
      "from t")
  }

  test("window sort: rank, dense_rank, a running sum over ties (RANGE frame: peers together), lag and lead") {
    checkWindowSort("select id, p, o, d, rank() over (partition by p order by o desc nulls last) as r, " +
      "dense_rank() over (partition by p order by d) as dr, " +
      "sum(price) over (partition by p order by o) as running, " +
      "lag(id) over (partition by pi order by o, id) as prev, lead(s) over (partition by pi order by o, id) as nxt " +
      "from t")
  }

  test("window sort: two windows over a Rowmatch aggregate, partitioned differently (TPC-DS q47's shape)") {
    val nodes = checkWindowSort("select p, pi, s, total, avg(total) over (partition by p, pi) as avg_total, " +
      "rank() over (partition by p, s order by pi, total) as rn from " +
      "(select p, pi, s, sum(price) as total from t group by p, pi, s)")
    assert(nodes.size == 2, nodes.mkString("\n"))
  }

  test("window sort: a buffer smaller than one row hands every task's rows to Spark's sorter") {
    withConf(RowmatchConf.WINDOW_SORT_BUFFER -> "0") {
      val nodes = checkWindowSort("select id, p, o, rank() over (partition by p order by o, id) as r, " +
        "sum(price) over (partition by p order by o, id) as running from t")
      assert(nodes.map(_.metrics("numSpillSorts").value).sum > 0)
    }
  }

  test("task memory refused: the window sort hands its rows to Spark's sorter, the partial limit emits early") {
    // Spark grants each task 1 byte: the first MiB of rows held is refused.
    withConf(RowmatchConf.TEST_TASK_MEMORY_GRANT_ENTRY.key -> "1") {
      val sorts = checkWindowSort("select id, p, o, rank() over (partition by p order by o, id) as r, " +
        "sum(price) over (partition by p order by o, id) as running from t")
      assert(sorts.map(_.metrics("numSpillSorts").value).sum > 0)
      val limits = checkLimit(ranked("dense_rank", "d desc", "<= 2"))
      assert(limits.map(_.metrics("numFlushes").value).sum > 0)
    }
  }

  test("window sort: a window over another window's sorted output keeps Spark's sort, with the reason") {
    val q = "select id, p, o, rank() over (partition by p order by o, id) as r, sum(price) over (partition by p) as total " +
      "from t"
    checkAnswerAndOperators(spark.sql(q), mustRun = Nil)
    val df = spark.sql(q)
    df.collect()
    assert(executedNodes(df).exists(sortUnderWindow), planText(df))
    assert(fallbackReasons(df).exists(_.contains("relies on the window's sorted output")), planText(df))
  }

  test("window sort: a partition key compared by collation keeps Spark's sort, with the reason") {
    val q = "select id, s, rank() over (partition by collate(s, 'UTF8_LCASE') order by id) as r from t"
    val rows = checkAnswerAndOperators(spark.sql(q), mustRun = Nil)
    assert(rows.nonEmpty)
    val df = spark.sql(q)
    df.collect()
    assert(!executedNodes(df).exists(_.isInstanceOf[RowmatchWindowSortExec]), planText(df))
    assert(fallbackReasons(df).exists(_.contains("is not compared by its bytes")), planText(df))
  }

  test("switched off: Spark's partial limit, its window sort and their sorts stay") {
    withConf(RowmatchConf.WINDOW_GROUP_LIMIT_ENABLED -> "false") {
      val df = spark.sql(ranked("rank", "o", "<= 3"))
      df.collect()
      val nodes = executedNodes(df)
      assert(!nodes.exists(_.isInstanceOf[RowmatchWindowGroupLimitExec]), planText(df))
      assert(nodes.exists { case w: WindowGroupLimitExec => w.mode == Partial; case _ => false }, planText(df))
    }
    withConf(RowmatchConf.WINDOW_SORT_ENABLED -> "false") {
      val df = spark.sql("select id, p, rank() over (partition by p order by o) as r from t")
      df.collect()
      val nodes = executedNodes(df)
      assert(!nodes.exists(_.isInstanceOf[RowmatchWindowSortExec]), planText(df))
      assert(nodes.exists(sortUnderWindow), planText(df))
    }
  }
}
