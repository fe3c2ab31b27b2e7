package io.rowmatch.spark.joins

import java.io.File

import org.apache.spark.sql.DataFrame

import io.rowmatch.spark.{RowmatchQueryTest, SuiteDirectory}
import io.rowmatch.spark.join.DictionaryProbe

/**
 * A broadcast join whose one probe key a Parquet scan hands over dictionary-encoded looks its rows up by dictionary
 * id (DictionaryProbe): answers equal vanilla Spark's for int, bigint, string (empty, multibyte), double (NaN, -0.0
 * against 0.0), decimal and date keys with nulls, over files of many row groups (a dictionary per column chunk),
 * for inner, outer, semi and anti joins, unique and repeated build keys, a filter below the join (its kept rows), a
 * condition on other columns, the key in the output, and a dictionary of more entries than a batch has rows (looked
 * up by id once the chunk's rows outnumber its entries); the rows asserted looked up by id, and none over the same
 * data written without dictionaries, nor where the key is computed or the condition reads it (the general path).
 * A chain of broadcast joins looks the next key, the last dimension's column passed on deferred, up by build row
 * (an outer join's missing rows: null keys), over either encoding.
 */
class DictionaryProbeSuite extends RowmatchQueryTest with SuiteDirectory {

  override protected def directoryPrefix: String = "rowmatch-dictionary-probe"

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    // 20000 rows in 2 files of row groups of about 16 KB: many column chunks, so many dictionaries per key.
    val rows = spark.range(0, 20000, 1, 2).selectExpr(
      "case when id % 13 = 0 then null else cast(id % 31 as int) end as i",
      "case when id % 17 = 0 then null else id % 29 end as l",
      "case when id % 11 = 0 then null when id % 5 = 0 then '' when id % 7 = 0 then 'é日本' " +
        "else concat('k', cast(id % 23 as string)) end as s",
      "case when id % 19 = 0 then null when id % 4 = 0 then cast('NaN' as double) when id % 4 = 1 then -0.0 " +
        "else cast(id % 6 as double) end as d",
      "case when id % 23 = 0 then null else cast(id % 9 as decimal(12, 2)) end as dec",
      "case when id % 29 = 0 then null else date_add(date'1969-12-28', cast(id % 8 as int)) end as dt",
      "id as v", "cast(id % 1000 as decimal(20, 2)) as amount")
    // One row group of 30000 rows whose key has 6000 values: more entries than a batch has rows.
    val wide = spark.range(0, 30000, 1, 1).selectExpr(
      "case when id % 37 = 0 then null else cast((id * 7919) % 6000 as int) end as w", "id as v")
    for (dictionary <- Seq(true, false)) {
      rows.write.option("parquet.enable.dictionary", dictionary.toString).option("parquet.block.size", 16 * 1024)
        .option("parquet.page.size", 4 * 1024).parquet(new File(dir, s"t-$dictionary").getPath)
      wide.write.option("parquet.enable.dictionary", dictionary.toString)
        .parquet(new File(dir, s"tw-$dictionary").getPath)
    }
  }

  /**
   * Dimensions keyed by each type: `u` one row per key 0..24 (the fact's keys run to 30: some rows find none), `r`
   * keys 0..11 twice each (every match twice), `sd` strings (with '' and a multibyte one), `dd` doubles (NaN and 0.0,
   * which -0.0 joins as Spark normalizes it), `cd` decimals and dates.
   */
  private def dimensions(): Unit = {
    spark.range(25).selectExpr("cast(id as int) as k", "id as kl",
      "case when id % 4 = 0 then null else concat('u', cast(id % 7 as string)) end as name",
      "cast(id % 5 as int) as grp").createOrReplaceTempView("u")
    spark.range(24).selectExpr("cast(id % 12 as int) as k", "id as tag").createOrReplaceTempView("r")
    spark.range(0, 6000, 3).selectExpr("cast(id as int) as k", "id * 2 as x").createOrReplaceTempView("big")
    spark.range(4).selectExpr("cast(id as int) as k", "concat('g', cast(id as string)) as label")
      .createOrReplaceTempView("g")
    spark.range(6).selectExpr("cast(id % 3 as int) as k").createOrReplaceTempView("gg")
    spark.sql("select * from values ('k1', 1), ('k5', 2), ('', 3), ('é日本', 4), ('k22', 5), ('zz', 6) as sd(ks, w)")
      .createOrReplaceTempView("sd")
    spark.sql("select * from values (cast('NaN' as double), 1), (0.0d, 2), (3.0d, 3), (7.0d, 4) as dd(kd, w)")
      .createOrReplaceTempView("dd")
    spark.sql("select * from values (cast(3 as decimal(12, 2)), date'1969-12-30', 1), " +
      "(cast(8 as decimal(12, 2)), date'1970-01-02', 2), (cast(40 as decimal(12, 2)), date'2024-01-01', 3) " +
      "as cd(kdec, kdt, w)").createOrReplaceTempView("cd")
  }

  private val byId = Seq(
    "int key, unique build keys" -> "select /*+ BROADCAST(u) */ t.v, u.name from t join u on t.i = u.k",
    "int key, each build key twice" -> "select /*+ BROADCAST(r) */ t.v, t.i, r.tag from t join r on t.i = r.k",
    "bigint key, the key in the output" -> "select /*+ BROADCAST(u) */ t.l, t.v, u.grp from t join u on t.l = u.kl",
    "string key: empty and multibyte" -> "select /*+ BROADCAST(sd) */ t.s, t.v, sd.w from t join sd on t.s = sd.ks",
    "double key: NaN, -0.0 and 0.0" -> "select /*+ BROADCAST(dd) */ t.d, t.v, dd.w from t join dd on t.d = dd.kd",
    "decimal key" -> "select /*+ BROADCAST(cd) */ t.dec, t.v, cd.w from t join cd on t.dec = cd.kdec",
    "date key before and after 1970" -> "select /*+ BROADCAST(cd) */ t.dt, t.v, cd.w from t join cd on t.dt = cd.kdt",
    "left outer (null keys and misses kept)" ->
      "select /*+ BROADCAST(u) */ t.i, t.v, u.name from t left join u on t.i = u.k",
    "left semi" -> "select /*+ BROADCAST(r) */ t.v, t.s from t left semi join r on t.i = r.k",
    "left anti" -> "select /*+ BROADCAST(r) */ t.v, t.i from t left anti join r on t.i = r.k",
    "under a filter (the batch's kept rows)" ->
      "select /*+ BROADCAST(u) */ t.v, t.i, u.name from t join u on t.i = u.k where t.v % 3 = 1",
    "a condition on other columns" ->
      "select /*+ BROADCAST(r) */ t.v, r.tag from t join r on t.i = r.k and t.v % 7 > r.tag % 5",
    "a dictionary larger than a batch (its first batches by value, then by id)" ->
      "select /*+ BROADCAST(big) */ tw.v, tw.w, big.x from tw join big on tw.w = big.k",
    "aggregated above" ->
      "select /*+ BROADCAST(u) */ u.grp, count(*), sum(t.amount) from t join u on t.i = u.k group by u.grp")

  /**
   * Chains of broadcast joins whose second key is the first join's build column, passed on deferred: looked up by
   * build row, whatever the scan's encoding; an outer first join's missing rows are null keys.
   */
  private val byBuildRow = Seq(
    "a dimension's column as the next key" ->
      "select /*+ BROADCAST(u), BROADCAST(g) */ t.v, u.name, g.label from t join u on t.i = u.k join g on u.grp = g.k",
    "an outer join's missing rows as null keys (kept by the next outer join)" ->
      ("select /*+ BROADCAST(u), BROADCAST(g) */ t.v, u.grp, g.label from t left join u on t.i = u.k " +
        "left join g on u.grp = g.k"),
    "each next build key twice" ->
      "select /*+ BROADCAST(u), BROADCAST(gg) */ t.v, u.name, gg.k from t join u on t.i = u.k join gg on u.grp = gg.k")

  /** Joins that must take the general path: a computed key, two keys, a condition reading the key. */
  private val general = Seq(
    "computed key" -> "select /*+ BROADCAST(u) */ t.v, u.name from t join u on t.i + 1 = u.k",
    "two keys" -> "select /*+ BROADCAST(u) */ t.v, u.name from t join u on t.i = u.k and t.l = u.kl",
    "a condition reading the key" ->
      "select /*+ BROADCAST(r) */ t.v, r.tag from t join r on t.i = r.k and t.i + r.tag > 12")

  private def table(dictionary: Boolean): DataFrame = spark.read.parquet(new File(dir, s"t-$dictionary").getPath)

  for ((name, sql) <- byId) {
    test(s"$name: probed by dictionary id, answers as vanilla's; plain pages: the general path, same answers") {
      dimensions()
      for (dictionary <- Seq(true, false)) {
        table(dictionary).createOrReplaceTempView("t")
        spark.read.parquet(new File(dir, s"tw-$dictionary").getPath).createOrReplaceTempView("tw")
        val before = DictionaryProbe.rowsProbed()
        checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashJoin"))
        val probed = DictionaryProbe.rowsProbed() - before
        if (dictionary) {
          assert(probed > 0, s"no row was looked up by dictionary id: $sql")
          if (sql.contains(" tw ")) {
            assert(probed < 30000, s"all $probed rows looked up by id: the first batches of a large dictionary are not")
          }
        } else {
          assert(probed == 0, s"$probed rows of plain pages were looked up by dictionary id: $sql")
        }
      }
    }
  }

  for ((name, sql) <- byBuildRow) {
    test(s"$name: probed by build row, answers as vanilla's, over dictionary and plain pages") {
      dimensions()
      for (dictionary <- Seq(true, false)) {
        table(dictionary).createOrReplaceTempView("t")
        val before = DictionaryProbe.rowsProbed()
        checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashJoin"))
        assert(DictionaryProbe.rowsProbed() - before > 0,
          s"the second join's rows were not looked up by build row: $sql")
      }
    }
  }

  for ((name, sql) <- general) {
    test(s"$name: the general path over dictionary pages, answers as vanilla's") {
      dimensions()
      table(dictionary = true).createOrReplaceTempView("t")
      val before = DictionaryProbe.rowsProbed()
      checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashJoin"))
      assert(DictionaryProbe.rowsProbed() == before, s"rows were looked up by dictionary id: $sql")
    }
  }
}
