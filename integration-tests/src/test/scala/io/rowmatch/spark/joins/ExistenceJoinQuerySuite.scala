package io.rowmatch.spark.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.plans.ExistenceJoin
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._

import io.rowmatch.spark.join.JoinSpec

/**
 * Spark's ExistenceJoin (EXISTS or IN under OR/CASE: every left row once, plus a non-null boolean "exists")
 * run as a RowmatchHashJoin, under each join strategy: answers as vanilla Spark's with nulls in the keys (a
 * null key never matches), an empty build side, duplicate build keys, residual conditions on the columnar
 * kernels and on Spark's row predicate; and the ANSI rule every semi, anti and existence join shares: no pair
 * of a probe row after its first passing one is evaluated, so an error there is not raised (Spark stops at the
 * first passing pair).
 */
class ExistenceJoinQuerySuite extends JoinQueryTest {

  /** Left: 300 rows, keys in [0, 12), 1 in 10 null; right: keys in [0, 30) (many absent), duplicates, nulls. */
  private lazy val left = JoinData.intKeys(spark, 300, 12, seed = 61, nullKeys = 0.1).toDF("k", "lv")
  private lazy val right = JoinData.intKeys(spark, 40, 30, seed = 62, nullKeys = 0.1).toDF("k", "rv")

  private def views(l: DataFrame, r: DataFrame): Unit = {
    l.createOrReplaceTempView("l")
    r.createOrReplaceTempView("r")
  }

  /** checkJoin under `st`, and the Rowmatch join that ran is an existence join. */
  private def checkExistence(st: Strategy, query: String): Seq[Row] = {
    val rows = checkJoin(st)(spark.sql(query))
    val joins = rowmatchJoins(lastJoin)
    assert(joins.exists(j => j.spec.kind == JoinSpec.Kind.EXISTENCE && j.joinType.isInstanceOf[ExistenceJoin]),
      s"no Rowmatch existence join in\n${planText(lastJoin)}")
    rows
  }

  private val queries = Seq(
    // IN under OR: the ExistenceJoin's key is l.k = r.k
    "select * from l where k in (select k from r) or lv % 7 = 0",
    // EXISTS under OR, correlated, with a residual condition the kernels evaluate
    "select * from l where exists (select 1 from r where r.k = l.k and r.rv > l.lv - 150) or lv < 20",
    // a residual condition the kernels do not support (lower, string-valued): Spark's row predicate
    "select k, lv from l where exists (select 1 from r where r.k = l.k and " +
      "lower(cast(r.rv + l.lv as string)) like '%3') or lv > 280",
    // CASE WHEN over EXISTS, in the projection's filter and as a value
    "select k, lv, case when exists (select 1 from r where r.k = l.k) then 'y' else 'n' end as e from l " +
      "where exists (select 1 from r where r.k = l.k) or k is null",
    // two keys (one computed), NOT of the existence
    "select * from l where not exists (select 1 from r where r.k = l.k and r.rv % 5 = l.lv % 5) or lv > 250")

  for (st <- strategies) {
    test(s"EXISTS / IN under OR, ${st.name}: nulls in keys, duplicate build keys, residual conditions") {
      views(left, right)
      queries.foreach(q => checkExistence(st, q))
    }

    test(s"an empty build side and an empty probe side, ${st.name}") {
      views(left, right.where("rv < 0"))
      val rows = checkExistence(st, queries.head)
      assert(rows.nonEmpty && rows.forall(_.getLong(1) % 7 == 0), "nothing exists in an empty subquery")
      checkExistence(st, queries(1))
      views(left.where("lv < 0"), right)
      assert(checkExistence(st, queries.head).isEmpty)
    }

    test(s"a build side of only null keys, and every probe key null, ${st.name}") {
      // nulls the optimizer cannot see (a null literal key would drop the join)
      views(left, right.withColumn("k", expr("if(rv >= 0, cast(null as int), k)")))
      checkExistence(st, queries.head)
      views(left.withColumn("k", expr("if(lv >= 0, cast(null as int), k)")), right)
      checkExistence(st, queries.head)
      checkExistence(st, queries(1))
    }
  }

  test("the exists flag itself: every left row once, true exactly where a passing match exists") {
    // l.k in (r.k) as a value: Spark keeps ExistenceJoin's flag in the output (or-ed with a false literal, so the
    // flag is what decides), counted per flag
    views(left.where("k is not null and lv < 64"), right)
    for (st <- strategies) {
      val rows = checkExistence(st,
        "select k, lv, exists (select 1 from r where r.k = l.k and r.rv > 5) or lv < 0 as e from l")
      assert(rows.size == left.where("k is not null and lv < 64").count())
    }
  }

  test("many build rows per key (pairs across chunks) with a condition few pairs pass") {
    val a = JoinData.intKeys(spark, 2000, 5, seed = 63).toDF("k", "lv")
    val b = JoinData.intKeys(spark, 3000, 5, seed = 64).toDF("k", "rv")
    views(a, b)
    for (st <- strategies) {
      checkExistence(st, "select * from l where exists (select 1 from r where r.k = l.k and r.rv > l.lv + 2990) " +
        "or lv % 11 = 0")
    }
  }

  /** (k, x) with x = 5, 3, 5 for each key: the middle build row of a key divides by zero in `cond`. */
  private def zeros: DataFrame = {
    val rows = (0 until 10).flatMap(k => Seq(Row(k, 5), Row(k, 3), Row(k, 5)))
    // One partition, so each key's rows stay in this order through any shuffle (Spark meets a passing row first
    // whichever way it walks a key's rows).
    spark.createDataFrame(rows.asJava, StructType(Seq(StructField("k", IntegerType), StructField("x", IntegerType))))
      .coalesce(1)
  }

  private def probes: DataFrame = spark.range(0, 200, 1, 2).selectExpr("cast(id % 10 as int) as k", "id + 1 as v")

  private def isSparkError(e: Throwable, condition: String): Boolean =
    Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).exists {
      case t: SparkThrowable => t.getCondition == condition
      case _ => false
    }

  // Columnar (`/` and `%` are kernels) and row (lower, string-valued, is not) conditions; the first pair of every
  // probe row passes.
  private val ansiConditions = Seq("l.v / (r.x - 3) > 0" -> "columnar", "l.v % (r.x - 3) >= 0" -> "columnar",
    "lower(cast(l.v % (r.x - 3) as string)) <> 'x'" -> "rows")

  for ((cond, path) <- ansiConditions) {
    test(s"ANSI, condition $cond on $path: semi, anti and existence joins stop at a probe row's first passing pair") {
      views(probes, zeros)
      withConf("spark.sql.ansi.enabled" -> "true") {
        for (st <- strategies) {
          for (jt <- Seq("left_semi", "left_anti")) {
            checkJoin(st)(probes.alias("l").join(zeros.alias("r"), expr(s"l.k = r.k AND $cond"), jt))
            assert(rowmatchJoins(lastJoin).forall(j => j.conditionRowReason.isEmpty == (path == "columnar")),
              planText(lastJoin))
          }
          checkExistence(st, s"select * from l where exists (select 1 from r where r.k = l.k and " +
            s"$cond) or l.v < 0")
        }
        // An inner join evaluates every pair, as Spark does: the error is Spark's, plugin on and off.
        for (st <- strategies; plugin <- Seq("false", "true")) {
          withConf(st.conf :+ ("spark.rowmatch.enabled" -> plugin): _*) {
            val e = intercept[Exception](probes.alias("l").join(zeros.alias("r"), expr(s"l.k = r.k AND $cond"))
              .collect())
            assert(isSparkError(e, "DIVIDE_BY_ZERO") || isSparkError(e, "REMAINDER_BY_ZERO"),
              s"plugin $plugin, ${st.name}: $e")
          }
        }
      }
    }
  }

  private def expr(s: String) = org.apache.spark.sql.functions.expr(s)
}
