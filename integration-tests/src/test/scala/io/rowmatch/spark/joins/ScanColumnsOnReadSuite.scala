package io.rowmatch.spark.joins

import java.io.File

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.{col, count, expr, lit, max, min, sum}
import org.apache.spark.sql.types.{IntegerType, StructField}

import io.rowmatch.spark.SuiteDirectory
import io.rowmatch.spark.arrow.ConvertOnReadColumn
import io.rowmatch.spark.join.JoinOutput

/**
 * A vectorized scan's columns reach Arrow only when read: a broadcast join over the scan reads its keys, and copies
 * the other columns only for the rows it outputs, straight from Spark's column vectors (dictionary-encoded or plain
 * Parquet pages). Answers as vanilla Spark's for every column type (nulls, NaN, -0.0, multibyte and empty strings,
 * binary, 30-digit decimals) over fact files of 0/1/63/64/65/700 rows around the 64-row batch, with a filter or a
 * computed projection between the scan and the join, a condition reading a fact column, outer, semi and chained
 * joins, and an aggregate above. Each selective case asserts rows were gathered from Spark's columns; a chain of
 * joins keeping most rows asserts the scan's columns were passed on as selections, uncopied, to where they are read.
 */
class ScanColumnsOnReadSuite extends JoinQueryTest with SuiteDirectory {

  override protected def directoryPrefix: String = "rowmatch-scan-on-read"

  /**
   * allTypes rows with a foreign key `fk` into [0, 50) (row 0's is 3, a key the dimension keeps), written as
   * Parquet (dictionary-encoded pages or plain ones) and read back, so the join's probe side is a vectorized scan.
   */
  private def fact(rows: Int, dictionary: Boolean): DataFrame = {
    val path = new File(dir, s"fact-$rows-$dictionary").getPath
    if (!new File(path).exists()) {
      val base = JoinData.allTypes(spark, rows, 81, domain = 9).collect()
      val keyed = base.zipWithIndex.map { case (row, r) => Row.fromSeq(row.toSeq :+ (if (r == 0) 3 else (r * 7) % 50)) }
      spark.createDataFrame(keyed.toSeq.asJava, JoinData.allTypesSchema.add(StructField("fk", IntegerType)))
        .repartition(2).write.option("parquet.enable.dictionary", dictionary.toString).parquet(path)
    }
    spark.read.parquet(path).alias("f")
  }

  /** allTypes rows with a unique key `pk` 0 until rows. */
  private def dimension(rows: Int, seed: Long, alias: String): DataFrame =
    JoinData.allTypes(spark, rows, seed, domain = 5).withColumn("pk", expr("cast(substring(payload, 2) AS int)"))
      .alias(alias)

  /** The dimension, broadcast (hinted: a small fact file could otherwise be the side Spark builds). */
  private lazy val dim = dimension(50, 82, "d").hint("broadcast")
  /**
   * Keys 3, 13, 23, 33, 43 of the 50: a join keeping a tenth of the fact rows. Chosen by payload, not by key, so
   * Spark infers no filter on the fact's key from it (the scan's filter would then drop the rows instead).
   */
  private def few: DataFrame = dim.where("d.payload LIKE '%3'").hint("broadcast")

  private val factColumns = JoinData.allTypesSchema.fieldNames.toSeq :+ "fk"

  private def factAnd(df: DataFrame, dimColumns: String*): DataFrame =
    df.select(factColumns.map(c => col(s"f.$c")) ++ dimColumns.map(c => col(s"d.$c")): _*)

  /** Runs the broadcast check; how much the plugin's run moved a JVM-wide counter. */
  private def counting(counter: => Long)(query: => DataFrame): Long = {
    val before = counter
    checkJoin(Broadcast) { query }
    counter - before
  }

  /** The gathers from Spark's columns the plugin's run took. */
  private def gathering(query: => DataFrame): Long = counting(ConvertOnReadColumn.gathers())(query)

  for (dictionary <- Seq(true, false); rows <- Seq(0, 1, 63, 64, 65, 700)) {
    val pages = if (dictionary) "dictionary pages" else "plain pages"
    test(s"$rows fact rows ($pages) through a selective broadcast join") {
      val n = gathering { factAnd(fact(rows, dictionary).join(few, expr("f.fk = d.pk")), "s", "dec", "bin") }
      // One row that matches is most of its batch: copied whole, then gathered.
      if (rows > 1) {
        assert(n > 0, s"no rows gathered from the scan's columns\n${planText(lastJoin)}")
      }
    }
  }

  for (dictionary <- Seq(true, false)) {
    val pages = if (dictionary) "dictionary pages" else "plain pages"
    def f = fact(700, dictionary)

    test(s"$pages: a computed projection between the scan and the join") {
      val n = gathering {
        f.select(col("*"), expr("i * 2 + 1 AS i2"), expr("concat(s, 'x') AS sx")).alias("f")
          .join(few, expr("f.fk = d.pk")).select(col("f.payload"), col("f.i2"), col("f.sx"), col("f.big"),
            col("f.d"), col("f.ts"), col("f.ntz"), col("f.bin"), col("d.s"))
      }
      assert(n > 0, s"no rows gathered\n${planText(lastJoin)}")
    }

    test(s"$pages: a filter keeping most rows, then the selective join") {
      checkJoin(Broadcast) { factAnd(f.where("f.payload <> 'p5'").join(few, expr("f.fk = d.pk")), "l") }
    }

    test(s"$pages: a filter keeping few rows, then a join keeping every one") {
      // The join reads its key column whole: the kept rows of it come straight from Spark's column.
      val n = gathering { factAnd(f.where("f.i = 1").join(dim, expr("f.fk = d.pk")), "l", "s") }
      assert(n > 0, s"no rows gathered\n${planText(lastJoin)}")
    }

    test(s"$pages: a filter keeping few rows, then projections computing on every column type") {
      val n = gathering {
        // Only the key and computed columns go on: every fact column is read whole, by the join or a kernel.
        f.where("f.i = 1 OR f.s IS NULL").select(col("f.fk"), expr("concat(f.payload, '.') AS p"),
          expr("f.i * 2 + 1 AS i2"), expr("concat(f.s, 'x') AS sx"), expr("f.dec + 1 AS dec1"),
          expr("f.big - 1 AS big1"), expr("f.d * 2.0 AS d2"), expr("date_add(f.dt, 1) AS dt1"),
          expr("f.l + 1 AS l1")).alias("f").join(dim, expr("f.fk = d.pk")).select(col("f.*"), col("d.s"))
      }
      // The kept rows of each column read whole come straight from Spark's column, not from a whole copy.
      assert(n > 0, s"no rows gathered\n${planText(lastJoin)}")
    }

    test(s"$pages: a condition reading fact columns besides the keys") {
      val n = gathering {
        factAnd(f.join(few, expr("f.fk = d.pk AND (f.d IS NULL OR f.d < d.d + 1) AND f.s <> 'zz'")), "d")
      }
      assert(n > 0, s"no rows gathered\n${planText(lastJoin)}")
    }

    for (jt <- Seq("left_outer", "left_semi", "left_anti")) {
      test(s"$pages: a selective $jt join") {
        checkJoin(Broadcast) {
          val j = f.join(few, expr("f.fk = d.pk"), jt)
          if (jt == "left_outer") factAnd(j, "s", "dt") else factAnd(j)
        }
      }
    }

    test(s"$pages: two joins, the second over the first's gathered columns, and an aggregate above") {
      val other = dimension(30, 83, "e").hint("broadcast")
      val n = gathering {
        f.join(few, expr("f.fk = d.pk")).join(other, expr("f.i + 5 = e.pk"))
          .groupBy(col("f.s"), col("e.dt")).agg(sum(col("f.dec")), count(lit(1)), max(col("f.big")),
            min(col("f.payload")), max(col("d.l")), sum(col("f.d")))
      }
      assert(n > 0, s"no rows gathered\n${planText(lastJoin)}")
    }
  }

  /** 45 keys of the 50: a join keeping nine tenths of the fact rows, in batches of their own (not coalesced). */
  private def most: DataFrame = dim.where("d.payload NOT LIKE '%3'").hint("broadcast")

  /** The probe columns the plugin's joins passed on as selections of a scan's column. */
  private def selecting(query: => DataFrame): Long = counting(JoinOutput.selectedProbeColumns())(query)

  for (dictionary <- Seq(true, false); rows <- Seq(1, 63, 64, 65, 700)) {
    val pages = if (dictionary) "dictionary pages" else "plain pages"
    test(s"$rows fact rows ($pages): a chain of joins keeping most rows passes the scan's columns on uncopied") {
      val e = dimension(30, 84, "e").hint("broadcast")
      val n = selecting {
        // The second join's key is a column the first passed on; every fact column goes on to the result.
        val j = fact(rows, dictionary).join(most, expr("f.fk = d.pk")).join(e, expr("f.i = e.pk"))
        j.select(factColumns.map(c => col(s"f.$c")) ++ Seq(col("d.s"), col("e.s").as("es")): _*)
      }
      // Up to 65 rows, each of the two files' batches keeps fewer than half a batch: coalesced, so copied.
      if (rows > 65) {
        assert(n > 0, s"no probe column passed on as a selection\n${planText(lastJoin)}")
      }
    }
  }

  for (dictionary <- Seq(true, false)) {
    val pages = if (dictionary) "dictionary pages" else "plain pages"
    test(s"$pages: scan batches of half a join batch, most rows kept: passed on uncopied, not coalesced") {
      // Scan batches of 32 rows under the join's 64-row chunks (as the 4096-row Parquet batches under 8192): a
      // join keeping nine tenths of each keeps fewer than half a chunk, but half its probe batch, so it goes out
      // as a selection of the scan's columns instead of being copied into a coalesced batch.
      val n = withConf("spark.sql.parquet.columnarReaderBatchSize" -> "32") {
        selecting(factAnd(fact(700, dictionary).join(most, expr("f.fk = d.pk")), "s"))
      }
      assert(n > 0, s"no probe column passed on as a selection\n${planText(lastJoin)}")
    }

    test(s"$pages: selected scan columns read by a filter, an outer join and an aggregate above") {
      val e = dimension(30, 85, "e").hint("broadcast")
      val n = selecting {
        fact(700, dictionary).join(most, expr("f.fk = d.pk")).where("f.s IS NULL OR f.s <> 'b'")
          .join(e, expr("f.i = e.pk"), "left_outer")
          .groupBy(col("f.s"), col("e.dt")).agg(sum(col("f.dec")), count(lit(1)), max(col("f.big")),
            min(col("f.payload")), max(col("d.l")), sum(col("f.d")), min(col("f.bin")), max(col("f.ts")))
      }
      assert(n > 0, s"no probe column passed on as a selection\n${planText(lastJoin)}")
    }
  }

  test("a scan read whole by an aggregate and by rows: converted as before") {
    val f = fact(700, dictionary = true)
    checkAnswerAndOperator(f.groupBy(col("s"), col("dt")).agg(sum(col("dec")), count(lit(1)), max(col("d"))))
    checkJoin(Broadcast) { factAnd(f.join(dim, expr("f.fk = d.pk")), "s") }
  }
}
