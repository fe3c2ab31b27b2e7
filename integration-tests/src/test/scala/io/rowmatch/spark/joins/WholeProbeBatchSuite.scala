package io.rowmatch.spark.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, count, expr, lit, max, sum}
import org.apache.spark.sql.types.{IntegerType, StructField}

import io.rowmatch.spark.join.JoinOutput

/**
 * A join that gathers every row of a probe batch in order (each fact row matching one dimension row, a semi join
 * keeping every row) passes the probe batch's columns on uncopied, and its output batch leaves them to the probe
 * side's producer when it is closed. Answers as vanilla Spark's for every column type (nulls, NaN, -0.0, multibyte
 * strings, binary) under the three join strategies, for fact tables of 0/1/63/64/65/700 rows around the 64-row batch,
 * in chains whose second join reads the first's passed-on columns, and next to batches where some rows miss
 * (which are gathered). Each case where every row matches asserts the columns were passed on; no Arrow memory is
 * held after any test (RowmatchQueryTest).
 */
class WholeProbeBatchSuite extends JoinQueryTest {

  /**
   * allTypes rows, each with a foreign key `fk` into [0, keys) (never null; out of range every `missEvery` rows
   * when that is positive). Built as local rows, so no join of ours makes the fact table.
   */
  private def fact(rows: Int, keys: Int, alias: String, missEvery: Int = 0): DataFrame = {
    val base = JoinData.allTypes(spark, rows, 71, domain = 9).collect()
    val keyed = base.zipWithIndex.map { case (row, r) =>
      Row.fromSeq(row.toSeq :+ (if (missEvery > 0 && r % missEvery == 0) keys + r else (r * 7) % keys))
    }
    spark.createDataFrame(keyed.toSeq.asJava, JoinData.allTypesSchema.add(StructField("fk", IntegerType, false)))
      .alias(alias)
  }

  /** allTypes rows with a unique key `pk` 0 until rows. */
  private def dimension(rows: Int, seed: Long, alias: String): DataFrame =
    JoinData.allTypes(spark, rows, seed, domain = 5).withColumn("pk", expr("cast(substring(payload, 2) AS int)"))
      .alias(alias)

  private lazy val d1 = dimension(50, 72, "d1")
  private lazy val d2 = dimension(30, 73, "d2")

  /** Runs the check (fact rows materialized first, so the fact side is a plain scan) and the batches passed on. */
  private def passedOn(st: Strategy, anyStrategy: Boolean = false)(query: => DataFrame): Long = {
    val before = JoinOutput.wholeProbeBatches()
    checkJoin(st, anyStrategy) { query }
    JoinOutput.wholeProbeBatches() - before
  }

  private def allColumns(df: DataFrame, aliases: String*): DataFrame = df.select(aliases.map(a => col(s"$a.*")): _*)

  for (st <- strategies; rows <- Seq(0, 1, 63, 64, 65, 700)) {
    test(s"${st.name}: $rows fact rows, each matching one dimension row") {
      val f = fact(rows, 50, "f")
      val n = passedOn(st) { allColumns(f.join(d1, expr("f.fk = d1.pk")), "f", "d1") }
      // A fact table smaller than the 50-row dimension is the side the join builds: nothing to pass on then.
      if (rows > 50) {
        assert(n > 0, s"no batch passed its probe columns on\n${planText(lastJoin)}")
      }
    }
  }

  for (st <- strategies) {
    test(s"${st.name}: a chain of two joins, the second reading the first's passed-on columns") {
      val f = fact(900, 50, "f")
      val n = passedOn(st) {
        f.join(d1, expr("f.fk = d1.pk")).join(d2, expr("d1.pk % 30 = d2.pk"))
          .select(col("f.payload"), col("f.s"), col("f.d"), col("f.bin"), col("d1.dec"), col("d2.s"), col("d2.f"),
            col("f.big"), col("f.ts"), col("d1.ntz"))
      }
      assert(n >= 2, s"$n batches passed on\n${planText(lastJoin)}")
    }

    test(s"${st.name}: an aggregate and a shuffle over a join that passes its probe columns on") {
      val f = fact(900, 50, "f")
      val n = passedOn(st) {
        f.join(d1, expr("f.fk = d1.pk")).groupBy(col("d1.s"), col("f.i")).agg(sum(col("f.dec")), count(lit(1)),
          max(col("f.s")), sum(col("d1.l")))
      }
      assert(n > 0, s"no batch passed on\n${planText(lastJoin)}")
    }

    test(s"${st.name}: a condition every pair passes, and one that drops some pairs") {
      val f = fact(700, 50, "f")
      val all = passedOn(st) { allColumns(f.join(d1, expr("f.fk = d1.pk AND f.fk >= 0")), "f", "d1") }
      assert(all > 0, s"no batch passed on\n${planText(lastJoin)}")
      checkJoin(st) { allColumns(f.join(d1, expr("f.fk = d1.pk AND (f.i IS NULL OR d1.i <> f.i)")), "f", "d1") }
    }

    test(s"${st.name}: fact rows that miss now and then: batches with a miss are gathered") {
      val f = fact(700, 50, "f", missEvery = 150)
      checkJoin(st) { allColumns(f.join(d1, expr("f.fk = d1.pk")), "f", "d1") }
    }

    for (jt <- Seq("left_outer", "left_semi")) {
      test(s"${st.name}: $jt join where every fact row matches") {
        val f = fact(700, 50, "f")
        val n = passedOn(st) {
          val j = f.join(d1, expr("f.fk = d1.pk"), jt)
          if (jt == "left_semi") allColumns(j, "f") else allColumns(j, "f", "d1")
        }
        assert(n > 0, s"no batch passed on\n${planText(lastJoin)}")
      }

      test(s"${st.name}: $jt join where some fact rows miss") {
        val f = fact(700, 50, "f", missEvery = 150)
        checkJoin(st) {
          val j = f.join(d1, expr("f.fk = d1.pk"), jt)
          if (jt == "left_semi") allColumns(j, "f") else allColumns(j, "f", "d1")
        }
      }
    }
  }

  test("broadcast: an existence join (EXISTS in a disjunction) over rows that all match") {
    fact(700, 50, "f").createOrReplaceTempView("wpb_fact")
    d1.createOrReplaceTempView("wpb_dim")
    try {
      val n = passedOn(Broadcast, anyStrategy = true) {
        spark.sql("SELECT fa.payload, fa.s, fa.bin, fa.d FROM wpb_fact fa " +
          "WHERE fa.i = 1 OR EXISTS (SELECT 1 FROM wpb_dim dm WHERE dm.pk = fa.fk)")
      }
      assert(n > 0, s"no batch passed on\n${planText(lastJoin)}")
    } finally {
      spark.catalog.dropTempView("wpb_fact")
      spark.catalog.dropTempView("wpb_dim")
    }
  }
}
