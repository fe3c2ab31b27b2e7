package io.rowmatch.spark

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.window.{Partial, WindowGroupLimitExec}

import io.rowmatch.spark.config.RowmatchConf
import io.rowmatch.spark.window.RowmatchWindowGroupLimitExec

/**
 * `rank() / dense_rank() / row_number() <= k` per partition: Spark plans a partial WindowGroupLimit over a sort
 * before the shuffle; Rowmatch runs it without the sort (RowmatchWindowGroupLimit). Answers equal vanilla Spark's
 * with partition and order keys of every kind (nulls, NaN payloads, -0.0, empty and multibyte strings, decimal(38)
 * sums, ties), over a scan and over a Rowmatch aggregate (TPC-DS q67's shape), with no partition keys, and with a
 * buffer so small the operator emits after every row; each asserts the Rowmatch operator ran and no vanilla
 * partial limit remained.
 */
class WindowGroupLimitSuite extends RowmatchQueryTest {

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

  test("switched off: Spark's partial limit and its sort stay") {
    withConf(RowmatchConf.WINDOW_GROUP_LIMIT_ENABLED -> "false") {
      val df = spark.sql(ranked("rank", "o", "<= 3"))
      df.collect()
      val nodes = executedNodes(df)
      assert(!nodes.exists(_.isInstanceOf[RowmatchWindowGroupLimitExec]), planText(df))
      assert(nodes.exists { case w: WindowGroupLimitExec => w.mode == Partial; case _ => false }, planText(df))
    }
  }
}
