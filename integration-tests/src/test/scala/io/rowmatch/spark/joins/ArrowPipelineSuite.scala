package io.rowmatch.spark.joins

import org.apache.spark.sql.functions._

import io.rowmatch.spark.arrow.RowmatchProjectExec
import io.rowmatch.spark.join.RowmatchHashJoinExec

/**
 * Chains of joins stay in Arrow: the column-pruning Project between two Rowmatch joins runs as a
 * RowmatchProject (no rows and back), and the answers still equal vanilla Spark's.
 */
class ArrowPipelineSuite extends JoinQueryTest {

  /** A join directly fed, through a RowmatchProject, by another join's Arrow batches. */
  private def chained(df: org.apache.spark.sql.DataFrame): Seq[RowmatchProjectExec] =
    executedNodes(df).collect { case j: RowmatchHashJoinExec => j }.flatMap(_.children).collect {
      case p @ RowmatchProjectExec(_, _: RowmatchHashJoinExec, _) => p
    }

  for (st <- strategies) {
    test(s"three joins with column pruning between them stay in Arrow, ${st.name}") {
      val a = JoinData.allTypes(spark, 200, seed = 11, domain = 5)
        .select(col("i").as("ai"), col("s").as("as_"), col("dec").as("adec"), col("l").as("al"))
      val b = JoinData.allTypes(spark, 150, seed = 12, domain = 5)
        .select(col("i").as("bi"), col("s").as("bs"), col("d").as("bd"), col("dt").as("bdt"))
      val c = JoinData.allTypes(spark, 120, seed = 13, domain = 5)
        .select(col("i").as("ci"), col("s").as("cs"), col("dec").as("cdec"), col("l").as("cl"))
      // The second join is on the first one's key, so shuffled strategies need no exchange between them
      // either: the first join's output is already partitioned by it.
      def query = a.join(b, col("ai") === col("bi"))
        .select("ai", "as_", "adec", "bs", "bd", "bdt")
        .join(c, col("ai") === col("ci"), "left_outer")
        .select("as_", "adec", "bd", "cs", "cdec", "cl")
      val rows = checkJoin(st)(query)
      assert(rows.nonEmpty)
      withConf(st.conf: _*) {
        val df = query
        df.collect()
        assert(chained(df).nonEmpty, s"no RowmatchProject between two Rowmatch joins in\n${planText(df)}")
      }
    }
  }

  test("a RowmatchProject over a join feeding a Rowmatch aggregate") {
    val a = JoinData.intKeys(spark, 400, 30, seed = 21).toDF("k", "av")
    val b = JoinData.intKeys(spark, 300, 30, seed = 22).toDF("k2", "bv")
    def query = a.join(b, col("k") === col("k2")).select("k", "bv").groupBy("k").agg(sum("bv"), count(lit(1)))
    checkJoin(ShuffledHash)(query)
    checkAnswerAndOperator(query)
  }
}
