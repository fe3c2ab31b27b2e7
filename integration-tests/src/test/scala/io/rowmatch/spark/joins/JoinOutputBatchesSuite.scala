package io.rowmatch.spark.joins

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.expr

/**
 * A join whose chunks of pairs keep only a few rows (a selective condition, or an inner join's misses) coalesces
 * them into batches of at least half a batch (the suites' batches are 64 rows) instead of one small batch per
 * chunk, which every operator above would pay for. Answers as vanilla Spark's for every column type carried
 * (nulls, NaN, -0.0, multibyte strings, binary), with outer joins mixing coalesced pairs and unmatched rows.
 */
class JoinOutputBatchesSuite extends JoinQueryTest {

  private val half = 32

  /** allTypes with its row number `n` (from its payload "p<row>") to make conditions of any selectivity. */
  private def numbered(rows: Int, seed: Long, alias: String): DataFrame =
    JoinData.allTypes(spark, rows, seed, domain = 20).withColumn("n", expr("cast(substring(payload, 2) AS int)"))
      .alias(alias)

  private lazy val l = numbered(3000, 41, "l")
  private lazy val r = numbered(2000, 42, "r")

  private def batchesAndRows(): (Long, Long) = {
    val joins = rowmatchJoins(lastJoin)
    (joins.map(_.metrics("numOutputBatches").value).sum, joins.map(_.metrics("numOutputRows").value).sum)
  }

  for (st <- strategies) {
    for ((what, on) <- Seq(
        "a residual condition keeping 1 pair in 500" -> "l.i = r.i AND l.n - r.n BETWEEN 0 AND 5",
        "keys most probe rows miss" -> "l.i = r.i AND l.n % 400 = r.n % 400")) {
      test(s"${st.name}: $what gives batches of at least half a batch") {
        val rows = checkJoin(st) { l.join(r, expr(on), "inner").select("l.*", "r.*") }
        val (batches, out) = batchesAndRows()
        assert(out == rows.size && out > 100, s"$out rows out, ${rows.size} collected")
        // Chunks of 64 pairs keeping a few rows each: without coalescing a batch per chunk (or probe batch). With
        // it, all but each task's last batch hold at least half a batch (at most 4 probe tasks here).
        assert(batches <= out / half + 4, s"$batches batches for $out rows\n${planText(lastJoin)}")
      }
    }

    test(s"${st.name}: chunks keeping every pair next to chunks keeping few: the large ones go out on their own") {
      // About one pair per probe row; rows numbered below 250 of every 500 keep theirs, the others one in seven.
      val on = "l.i = r.i AND l.n % 100 = r.n % 100 AND (l.n % 500 < 250 OR l.n % 7 = 0)"
      val rows = checkJoin(st) { l.join(r, expr(on), "inner").select("l.*", "r.*") }
      val (batches, out) = batchesAndRows()
      assert(out == rows.size && out > 500, s"$out rows out, ${rows.size} collected")
      // A small coalesced batch is emitted early before each large chunk: at most one per switch from few to all.
      assert(batches <= out / half + 4 + 3000 / 500, s"$batches batches for $out rows\n${planText(lastJoin)}")
    }

    for (jt <- Seq("left_outer", "full_outer")) {
      test(s"${st.name}: $jt join with a selective condition: coalesced pairs next to unmatched rows") {
        checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
          l.join(r, expr("l.i = r.i AND l.n - r.n BETWEEN 0 AND 7"), jt).select("l.*", "r.*")
        }
      }
    }
  }
}
