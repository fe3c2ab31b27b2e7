package io.rowmatch.spark

import java.io.File
import java.nio.file.Files

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{ColumnarToRowExec, ExpandExec}

import io.rowmatch.spark.arrow.{RowmatchExpandExec, RowmatchToArrowExec}
import io.rowmatch.spark.joins.JoinData

/**
 * ROLLUP, CUBE, GROUPING SETS and several DISTINCT aggregates plan an Expand under the partial aggregation. Over
 * Arrow input (a Rowmatch join, a scan) it runs on Arrow batches (RowmatchExpand), so the k-fold rows it makes are
 * never rows: answers equal vanilla Spark's over every column type (nulls, NaN, -0.0, empty and multibyte strings,
 * decimals of both widths), the Expand asserted Rowmatch's with its aggregate reading it directly (no row
 * conversion between), and an Expand whose projection the kernels cannot evaluate left vanilla with its reason.
 */
class ExpandSuite extends RowmatchQueryTest {

  private var dir: File = _

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    dir = Files.createTempDirectory("rowmatch-expand").toFile
    // 700 rows in two files: batches of 64 rows, about 10% of every column null.
    JoinData.allTypes(spark, 700, 71, domain = 7).repartition(2).write.parquet(new File(dir, "fact").getPath)
    spark.read.parquet(new File(dir, "fact").getPath).createOrReplaceTempView("fact")
    JoinData.allTypes(spark, 12, 72, nulls = 0.0, domain = 7).createOrReplaceTempView("dim")
    JoinData.allTypes(spark, 1, 73, nulls = 0.0).write.parquet(new File(dir, "one").getPath)
    spark.read.parquet(new File(dir, "one").getPath).createOrReplaceTempView("one_row")
  }

  override protected def afterAll(): Unit = {
    try FileUtils.deleteDirectory(dir) finally super.afterAll()
  }

  /** Vanilla's answer, the Expand Rowmatch's, and no row conversion (nor vanilla Expand) left around it. */
  private def checkExpand(sql: String): Unit = {
    checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchExpand", "RowmatchHashAggregate"),
      noVanilla = Seq(classOf[ExpandExec]))
    val df = spark.sql(sql)
    df.collect()
    val nodes = executedNodes(df)
    val expands = nodes.collect { case e: RowmatchExpandExec => e }
    assert(expands.nonEmpty, planText(df))
    // Its input arrives as Arrow: never a ColumnarToRow/RowmatchToArrow round trip directly under it.
    expands.foreach { e =>
      assert(!e.child.isInstanceOf[RowmatchToArrowExec] || !e.child.children.exists(_.isInstanceOf[ColumnarToRowExec]),
        planText(df))
    }
    // And its output is read as Arrow: no RowmatchToArrow over a ColumnarToRow of an Expand.
    assert(!nodes.exists {
      case t: RowmatchToArrowExec => t.collectFirst { case e: RowmatchExpandExec => e }.isDefined
      case _ => false
    }, planText(df))
  }

  private val joined = "fact f join dim d on f.i = d.i"

  test("ROLLUP over a join: strings, decimals, doubles with NaN and -0.0, grouping_id") {
    checkExpand(s"select d.s, f.dec, f.d, sum(f.big), count(*), avg(f.l), grouping_id() from $joined " +
      "group by rollup(d.s, f.dec, f.d)")
  }

  test("CUBE over a join, with a HAVING on the grouping") {
    checkExpand(s"select f.s, d.dt, f.bool, sum(f.dec), max(f.payload), grouping(f.s) as g from $joined " +
      "group by cube(f.s, d.dt, f.bool) having count(*) > 1")
  }

  test("GROUPING SETS over a scan, a computed grouping expression among them") {
    checkExpand("select b, sh, l + 1 as l1, ts, count(f), min(ntz), sum(dec) from fact " +
      "group by grouping sets ((b, sh), (l + 1, ts), (b), ())")
  }

  test("ROLLUP whose aggregate reads a computed input (the Project between Expand and aggregate)") {
    checkExpand(s"select d.s, f.i, sum(f.dec * 2), sum(case when f.bool then f.big end) from $joined " +
      "group by rollup(d.s, f.i)")
  }

  test("several DISTINCT aggregates (Spark's rewrite expands each distinct column), with a FILTER") {
    checkExpand("select i, count(distinct s), count(distinct dec), sum(distinct l), " +
      "count(distinct d) filter (where b > 0), sum(big) from fact group by i")
  }

  test("empty and one-row inputs") {
    // A filter no row passes (not one the optimizer folds away): the Expand sees empty batches or none. AQE off,
    // or it would replace the plan by an empty relation once the first stage came back empty.
    withConf("spark.sql.adaptive.enabled" -> "false") {
      checkExpand("select s, i, count(*), sum(dec) from fact where l = 12345 group by rollup(s, i)")
    }
    checkExpand("select s, i, count(*), sum(dec) from one_row group by cube(s, i)")
  }

  test("an Expand the kernels cannot evaluate stays vanilla, with the reason") {
    // A DISTINCT aggregate's FILTER goes into the Expand's projections; a regular expression is not a kernel.
    val sql = "select i, count(distinct s) filter (where payload rlike 'p1.*'), count(distinct l) from fact group by i"
    checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashAggregate"))
    val df = spark.sql(sql)
    df.collect()
    val nodes = executedNodes(df)
    assert(nodes.exists(_.isInstanceOf[ExpandExec]), planText(df))
    assert(!nodes.exists(_.isInstanceOf[RowmatchExpandExec]), planText(df))
    assert(fallbackReasons(df).exists(r => r.contains("Expand") && r.contains("RLike")), planText(df))
  }
}
