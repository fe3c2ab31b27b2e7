package io.rowmatch.spark.expression

import java.io.File

import io.rowmatch.spark.{RowmatchQueryTest, SuiteDirectory}

/**
 * An expression of one broadcast-join build column passed on deferred (comparisons, IN, null tests, logic, string
 * prefix/suffix/contains, substring, concat, length, year and the conditionals over the column and literals) is
 * decided once per build row and each row takes its build row's answer (SourceRowKernel): answers equal vanilla
 * Spark's for strings (null, empty, multibyte, longer than a word), ints, doubles (NaN, -0.0), decimals, dates and
 * booleans, in projections under an aggregate (TPC-DS's `sum(CASE WHEN d_day_name = 'Sunday' THEN ...)`), in a
 * projection's output, after a chain of two broadcast joins (composed rows), and over an outer join; rows asserted
 * decided by build row. Not decided that way: a build side
 * with more rows than the probe side has (row by row, same answers), a batch of an outer join holding padded rows
 * (null build rows: the column is gathered), and an expression reading two columns (its one-column parts are).
 */
class SourceRowExpressionsSuite extends RowmatchQueryTest with SuiteDirectory {

  override protected def directoryPrefix: String = "rowmatch-source-rows"

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    spark.range(0, 6000, 1, 2).selectExpr(
      "case when id % 41 = 0 then null else cast(id % 47 as int) end as fk",
      "id as v", "cast(id % 1000 as decimal(12, 2)) as amount")
      .write.parquet(new File(dir, "fact").getPath)
    // A build side larger than the fact's rows: never decided per build row.
    spark.range(0, 20000).selectExpr("cast(id as int) as k", "concat('n', cast(id % 7 as string)) as name")
      .write.parquet(new File(dir, "wide").getPath)
  }

  /**
   * `d`: keys 0..39 (the fact's keys run to 46: some rows find none) with every type; `d2` keyed by d's `grp`.
   */
  private def dimensions(): Unit = {
    spark.read.parquet(new File(dir, "fact").getPath).createOrReplaceTempView("f")
    spark.read.parquet(new File(dir, "wide").getPath).createOrReplaceTempView("wide")
    spark.range(40).selectExpr("cast(id as int) as k",
      "case when id % 9 = 0 then null when id % 9 = 1 then '' when id % 9 = 2 then 'é日本' " +
        "when id % 9 = 3 then 'Sunday' when id % 9 = 4 then 'a day name longer than a word' " +
        "else concat('Mon', cast(id % 4 as string)) end as name",
      "case when id % 7 = 0 then null else cast(id % 5 as int) end as code",
      "case when id % 8 = 0 then null when id % 8 = 1 then cast('NaN' as double) when id % 8 = 2 then -0.0 " +
        "else cast(id % 3 as double) end as x",
      "case when id % 6 = 0 then null else cast(id % 4 as decimal(10, 2)) end as dec",
      "case when id % 5 = 0 then null else date_add(date'1969-12-30', cast(id % 4 as int)) end as dt",
      "case when id % 10 = 0 then null else id % 2 = 0 end as flag",
      "cast(id % 6 as int) as grp").createOrReplaceTempView("d")
    spark.range(6).selectExpr("cast(id as int) as g",
      "case when id = 0 then null else concat('G', cast(id as string)) end as label")
      .createOrReplaceTempView("d2")
  }

  private val bySourceRow = Seq(
    "CASE WHEN on a string under an aggregate (TPC-DS's day-name sums)" ->
      ("select /*+ BROADCAST(d) */ f.v % 5 as b, sum(case when d.name = 'Sunday' then f.amount end) as sun, " +
        "sum(case when d.name = 'é日本' then f.amount end) as mb, sum(case when d.name = '' then f.amount end) as e, " +
        "sum(case when d.name = 'a day name longer than a word' then f.amount else 0 end) as long " +
        "from f join d on f.fk = d.k group by f.v % 5"),
    "string tests in the output: IN, NOT, null tests, prefix, suffix, contains" ->
      ("select /*+ BROADCAST(d) */ f.v, d.name in ('Sunday', '', 'Mon1') as i, not (d.name = 'Mon2') as n, " +
        "d.name is null as isn, d.name is not null and d.name like 'Mon%' as p, d.name like '%day' as s, " +
        "d.name like '%ay n%' as c, d.name <=> 'Sunday' as ns from f join d on f.fk = d.k"),
    "ints, doubles (NaN, -0.0), decimals, dates, booleans" ->
      ("select /*+ BROADCAST(d) */ f.v, d.code in (1, 3) as ci, d.code > 2 or d.code is null as cg, " +
        "d.x = cast('NaN' as double) as xn, d.x = 0.0 as xz, d.x < 1.5 as xl, d.dec >= 2 as dg, " +
        "d.dt < date'1970-01-01' as dl, not d.flag as nf, d.flag and d.code = 1 as fc " +
        "from f join d on f.fk = d.k"),
    "after a second broadcast join (composed rows)" ->
      ("select /*+ BROADCAST(d), BROADCAST(d2) */ f.v, d.name = 'Sunday' as sun, d2.label in ('G1', 'G3') as l, " +
        "d2.label is null as ln from f join d on f.fk = d.k join d2 on d.grp = d2.g"),
    "a CASE with two columns: the one-column conditions" ->
      ("select /*+ BROADCAST(d) */ f.v, case when d.code = 1 then f.v when d.name = 'Sunday' then -f.v " +
        "else d.code end as z from f join d on f.fk = d.k"),
    "value functions of one column: substring, concat, length, year, COALESCE (TPC-DS q99's substr)" ->
      ("select /*+ BROADCAST(d) */ substr(d.name, 1, 3) as s3, substr(d.name, -2, 5) as sn, " +
        "concat(d.name, '-', d.name) as c, length(d.name) as l, year(d.dt) as y, coalesce(d.name, 'none') as co, " +
        "count(*) as n, sum(f.amount) as a from f join d on f.fk = d.k group by 1, 2, 3, 4, 5, 6"),
    "IF and CASE of one column, and their branches" ->
      ("select /*+ BROADCAST(d) */ f.v, if(d.name = 'Sunday', 'S', substr(d.name, 2, 2)) as i, " +
        "case when d.code > 2 then d.code when d.code is null then -1 end as c from f join d on f.fk = d.k"),
    "an outer join (batches with padded rows row by row, the others by build row)" ->
      "select /*+ BROADCAST(d) */ f.v, d.name = 'Sunday' as t, d.code in (1, 2) as c from f left join d on f.fk = d.k")

  private val rowByRow = Seq(
    "a build side larger than the probe side" ->
      "select /*+ BROADCAST(wide) */ f.v, wide.name = 'n3' as t from f join wide on f.fk = wide.k")

  for ((name, sql) <- bySourceRow) {
    test(s"$name: decided once per build row, answers as vanilla's") {
      dimensions()
      val before = ColumnarExpressions.rowsDecidedBySourceRow()
      checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashJoin", "RowmatchProject"))
      assert(ColumnarExpressions.rowsDecidedBySourceRow() > before, s"no row was decided by its build row: $sql")
    }
  }

  for ((name, sql) <- rowByRow) {
    test(s"$name: row by row, answers as vanilla's") {
      dimensions()
      val before = ColumnarExpressions.rowsDecidedBySourceRow()
      checkAnswerAndOperators(spark.sql(sql), mustRun = Seq("RowmatchHashJoin", "RowmatchProject"))
      assert(ColumnarExpressions.rowsDecidedBySourceRow() == before, s"rows were decided by build row: $sql")
    }
  }
}
