package io.rowmatch.spark

import java.io.File

import org.apache.spark.sql.DataFrame

import io.rowmatch.spark.aggregate.DictionaryGroups

/**
 * Grouping keys a Parquet scan hands over dictionary-encoded are grouped by dictionary id (DictionaryGroups): answers
 * equal vanilla Spark's for string (empty, multibyte), int, double (NaN, -0.0 and 0.0 in one group), decimal and
 * date keys with nulls, over files of several row groups (a dictionary per column chunk), under a filter (the kept
 * rows of a batch), with a key that is also an aggregate's input; the rows asserted grouped by id, and none over the
 * same data written without dictionaries (the general path, same answers).
 */
class DictionaryGroupsSuite extends RowmatchQueryTest with SuiteDirectory {

  override protected def directoryPrefix: String = "rowmatch-dictionary-groups"

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    // 20000 rows in 2 files of row groups of about 16 KB: many column chunks, so many dictionaries per key.
    val rows = spark.range(0, 20000, 1, 2).selectExpr(
      "case when id % 17 = 0 then null when id % 5 = 0 then '' when id % 7 = 0 then 'é日本' " +
        "else concat('k', cast(id % 23 as string)) end as s",
      "case when id % 13 = 0 then null else cast(id % 31 as int) end as i",
      "case when id % 11 = 0 then null when id % 4 = 0 then cast('NaN' as double) when id % 4 = 1 then -0.0 " +
        "when id % 4 = 2 then 0.0 else cast(id % 3 as double) end as d",
      "case when id % 19 = 0 then null else cast(id % 9 as decimal(12, 2)) end as dec",
      "case when id % 23 = 0 then null else date_add(date'2024-01-01', cast(id % 6 as int)) end as dt",
      "id as v", "cast(id % 1000 as decimal(20, 2)) as amount")
    for (dictionary <- Seq(true, false)) {
      rows.write.option("parquet.enable.dictionary", dictionary.toString).option("parquet.block.size", 16 * 1024)
        .option("parquet.page.size", 4 * 1024).parquet(new File(dir, s"t-$dictionary").getPath)
    }
  }

  /** A dimension of 25 rows keyed 0..24 (the fact's i runs to 30: some rows find none), names with nulls. */
  private def dimension(): Unit = {
    spark.range(25).selectExpr("cast(id as int) as k",
      "case when id % 4 = 0 then null when id % 3 = 0 then 'é' else concat('d', cast(id % 7 as string)) end as name",
      "cast(id % 5 as int) as grp", "cast(id % 3 as decimal(10, 2)) as rate").createOrReplaceTempView("dim")
    spark.range(9).selectExpr("cast(id as int) as k", "concat('e', cast(id % 4 as string)) as label")
      .createOrReplaceTempView("dim2")
  }

  private def table(dictionary: Boolean): DataFrame = spark.read.parquet(new File(dir, s"t-$dictionary").getPath)

  private val queries = Seq(
    "one string key" -> "select s, count(*), sum(v), min(amount) from t group by s",
    "string and int keys" -> "select s, i, count(*), avg(amount) from t group by s, i",
    "double key: NaN, -0.0 and 0.0" -> "select d, count(*), sum(v) from t group by d",
    "decimal and date keys" -> "select dec, dt, count(*), max(v) from t group by dec, dt",
    "under a filter (the batch's kept rows)" -> "select s, dt, count(*), sum(amount) from t where v % 3 = 1 group by s, dt",
    "a key that is an aggregate's input too" -> "select i, count(*), sum(i), max(s) from t group by i, s",
    "distinct" -> "select distinct s, i from t")

  private val joined = Seq(
    "two columns of one broadcast dimension" ->
      "select /*+ BROADCAST(d) */ d.name, d.grp, count(*), sum(t.v) from t join dim d on t.i = d.k group by d.name, d.grp",
    "columns of two dimensions" -> ("select /*+ BROADCAST(d), BROADCAST(e) */ d.name, e.label, count(*), max(t.amount) " +
      "from t join dim d on t.i = d.k join dim2 e on cast(t.v % 9 as int) = e.k group by d.name, e.label"),
    "an outer join's missing rows (null build rows)" ->
      "select /*+ BROADCAST(d) */ d.name, d.rate, count(*), sum(t.v) from t left join dim d on t.i = d.k group by d.name, d.rate",
    "a build column and a scan column" ->
      "select /*+ BROADCAST(d) */ d.name, t.s, count(*) from t join dim d on t.i = d.k group by d.name, t.s")

  for ((name, sql) <- joined) {
    test(s"keys from a broadcast join's build side ($name): grouped by build row, answers as vanilla's") {
      dimension()
      for (dictionary <- Seq(true, false)) {
        table(dictionary).createOrReplaceTempView("t")
        val before = DictionaryGroups.rowsGrouped()
        checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashAggregate", "RowmatchHashJoin"))
        val grouped = DictionaryGroups.rowsGrouped() - before
        if (dictionary || !sql.contains("t.s")) {
          assert(grouped > 0, s"no row was grouped by id: $sql")
        } else {
          assert(grouped == 0, s"$grouped rows with a plain-encoded scan key were grouped by id: $sql")
        }
      }
    }
  }

  for ((name, sql) <- queries) {
    test(s"$name: grouped by dictionary id, answers as vanilla's; plain pages: the general path, same answers") {
      for (dictionary <- Seq(true, false)) {
        table(dictionary).createOrReplaceTempView("t")
        val before = DictionaryGroups.rowsGrouped()
        checkAnswerAndOperator(spark.sql(sql))
        val grouped = DictionaryGroups.rowsGrouped() - before
        if (dictionary) {
          assert(grouped > 0, s"no row was grouped by dictionary id: $sql")
        } else {
          assert(grouped == 0, s"$grouped rows of plain pages were grouped by dictionary id: $sql")
        }
      }
    }
  }
}
