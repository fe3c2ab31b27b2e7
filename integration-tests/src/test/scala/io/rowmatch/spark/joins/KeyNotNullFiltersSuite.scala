package io.rowmatch.spark.joins

import java.io.File

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions.{Attribute, IsNotNull}
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{col, count, expr, lit, sum}

import io.rowmatch.spark.SuiteDirectory
import io.rowmatch.spark.arrow.RowmatchFilterExec

/**
 * Spark puts `isnotnull(key)` filters under inner and semi equi-joins; under a Rowmatch join, which drops null keys
 * itself, the ones made only of such tests go (DropKeyNotNullFilters). Answers as vanilla Spark's over Parquet fact
 * files whose keys are ~15% null (dictionary-encoded and plain), and the plan asserted: the filter gone under an
 * inner or semi join and under a chain of joins through column picks; kept, or narrowed to the tests no join
 * covers, under an outer join, a null-safe join, a computed projection, or where another column is tested too.
 */
class KeyNotNullFiltersSuite extends JoinQueryTest with SuiteDirectory with AdaptiveSparkPlanHelper {

  override protected def directoryPrefix: String = "rowmatch-key-not-null"

  /** allTypes rows (about 15% of each column null) written as Parquet and read back: a vectorized scan. */
  private def fact(dictionary: Boolean): DataFrame = {
    val path = new File(dir, s"fact-$dictionary").getPath
    if (!new File(path).exists()) {
      JoinData.allTypes(spark, 900, 91, nulls = 0.15, domain = 9).repartition(2).write
        .option("parquet.enable.dictionary", dictionary.toString).parquet(path)
    }
    spark.read.parquet(path).alias("f")
  }

  private lazy val d1 = JoinData.allTypes(spark, 30, 92, domain = 9).alias("d1")
  private lazy val d2 = JoinData.allTypes(spark, 20, 93, domain = 9).alias("d2")

  /**
   * The columns tested by `isnotnull` in each RowmatchFilter over the fact file's scan in the last query's final plan
   * (the dimensions' filters, on the build sides, stay as they are).
   */
  private def notNullFilters(): Seq[Seq[String]] = {
    val plan: SparkPlan = lastJoin.queryExecution.executedPlan
    collect(plan) { case f: RowmatchFilterExec if f.exists(_.isInstanceOf[FileSourceScanExec]) => f }.map { f =>
      f.condition.collect { case IsNotNull(a: Attribute) => a.name }.sorted
    }
  }

  /** The columns vanilla Spark's Filters over the fact scan test with `isnotnull` (what the rule may remove). */
  private def vanillaNotNull(query: => DataFrame): Seq[String] =
    withConf("spark.rowmatch.enabled" -> "false") {
      val df = query
      df.collect()
      collect(df.queryExecution.executedPlan) {
        case f: org.apache.spark.sql.execution.FilterExec if f.exists(_.isInstanceOf[FileSourceScanExec]) => f
      }.flatMap(_.condition.collect { case IsNotNull(a: Attribute) => a.name })
    }

  for (dictionary <- Seq(true, false)) {
    val pages = if (dictionary) "dictionary-encoded" else "plain"

    test(s"$pages: the key filter under an inner join goes") {
      def q = fact(dictionary).join(d1, expr("f.i = d1.i")).select(col("f.payload"), col("f.i"), col("d1.s"), col("f.d"))
      assert(vanillaNotNull(q).contains("i"), "Spark planned no isnotnull(i) to remove")
      checkJoin(Broadcast) { q }
      assert(!notNullFilters().exists(_.contains("i")), planText(lastJoin))
    }

    test(s"$pages: a chain of joins through column picks: both keys' filters go, an aggregate above") {
      checkJoin(Broadcast) {
        fact(dictionary).join(d1, expr("f.i = d1.i")).join(d2, expr("f.s = d2.s"))
          .groupBy(col("d1.s"), col("d2.dt")).agg(sum(col("f.l")), count(lit(1)))
      }
      assert(notNullFilters().forall(_.isEmpty), s"${notNullFilters()}\n${planText(lastJoin)}")
    }

    test(s"$pages: semi join's key filter goes; anti join's stays as Spark planned it") {
      checkJoin(Broadcast) {
        fact(dictionary).join(d1, expr("f.l = d1.l"), "left_semi").select(col("f.payload"), col("f.l"))
      }
      assert(!notNullFilters().exists(_.contains("l")), planText(lastJoin))
      checkJoin(Broadcast) {
        fact(dictionary).join(d1, expr("f.l = d1.l"), "left_anti").select(col("f.payload"), col("f.l"))
      }
    }

    test(s"$pages: an outer join and a null-safe join keep every row with a null key") {
      checkJoin(Broadcast) {
        fact(dictionary).join(d1, expr("f.i = d1.i"), "left_outer").select(col("f.payload"), col("f.i"), col("d1.s"))
      }
      checkJoin(Broadcast) {
        fact(dictionary).join(d1, expr("f.i <=> d1.i")).select(col("f.payload"), col("f.i"), col("d1.s"))
      }
    }

    test(s"$pages: a test of a column no join drops nulls of stays; a computed projection keeps the filter below") {
      checkJoin(Broadcast) {
        fact(dictionary).where("f.s IS NOT NULL").join(d1, expr("f.i = d1.i"))
          .select(col("f.payload"), col("f.s"), col("d1.dt"))
      }
      assert(notNullFilters().exists(_.contains("s")), s"${notNullFilters()}\n${planText(lastJoin)}")
      checkJoin(Broadcast) {
        fact(dictionary).where("f.i IS NOT NULL").select(col("f.payload"), expr("f.i + 1 AS i1"), col("f.i"))
          .join(d1, expr("i1 = d1.i + 1"))
          .select(col("f.payload"), col("i1"), col("d1.s"))
      }
    }
  }
}
