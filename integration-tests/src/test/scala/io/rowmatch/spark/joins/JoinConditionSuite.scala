package io.rowmatch.spark.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._

/**
 * A join's residual (non-equi) condition on the columnar kernels over each chunk of matched pairs, for every join
 * type and strategy: answers as vanilla Spark's, the condition marked columnar on every Rowmatch join, an
 * unsupported condition left to Spark's row predicate (with the reason), and ANSI errors raised exactly where
 * Spark raises them.
 */
class JoinConditionSuite extends JoinQueryTest {

  private lazy val l = JoinData.allTypes(spark, 400, seed = 21, domain = 5).alias("l")
  private lazy val r = JoinData.allTypes(spark, 300, seed = 22, domain = 5).alias("r")

  /** Conditions the kernels support, over both sides' columns of several types (q19-, q21- and q72-like). */
  private val conditions = Seq(
    "l.d < r.d OR l.s = r.s",
    "l.dec + r.dec > 0.01 AND l.ts <> r.ts",
    "l.sh < r.sh AND (l.payload LIKE '%1%' OR r.bool)",
    "(l.s IN ('a', 'ab', '日本') AND r.dec BETWEEN 0.0 AND 0.03) OR (l.f = r.f AND r.big > l.big)",
    "NOT (l.payload = r.payload) AND coalesce(l.l, r.l, 0) >= 0 AND l.ntz <= r.ntz")

  private def joinedOn(c: String, jt: String): DataFrame = l.join(r, expr(s"l.i = r.i AND ($c)"), jt)

  private def expr(s: String) = org.apache.spark.sql.functions.expr(s)

  private def assertColumnar(): Unit = {
    val conditioned = rowmatchJoins(lastJoin).filter(_.condition.isDefined)
    assert(conditioned.nonEmpty, s"no Rowmatch join with a condition in\n${planText(lastJoin)}")
    conditioned.foreach { j =>
      assert(j.conditionRowReason.isEmpty, s"condition on rows: ${j.conditionRowReason} in\n${planText(lastJoin)}")
      assert(j.simpleString(100).contains("(columnar)"), j.simpleString(100))
    }
  }

  for (st <- strategies; jt <- joinTypes) {
    test(s"$jt join, ${st.name}: columnar residual conditions over several types") {
      for (c <- conditions) {
        checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer")(joinedOn(c, jt))
        assertColumnar()
      }
    }
  }

  test("many pairs per chunk (most fail the condition), every strategy: inner, outer, semi, anti") {
    val a = JoinData.intKeys(spark, 3000, 4, seed = 23).alias("a")
    val b = JoinData.intKeys(spark, 2000, 4, seed = 24).alias("b")
    for (st <- strategies; jt <- Seq("inner", "left_outer", "full_outer", "left_semi", "left_anti")) {
      checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
        a.join(b, expr("a.k = b.k AND a.v < b.v - 1990 AND (a.v > 5 OR b.v < 1995)"), jt)
      }
      assertColumnar()
    }
  }

  test("an int or date comparison of the two sides (a band) with many rows per key: inner join, every strategy") {
    // 4 keys over 3000 x 2000 rows, ints and dates with nulls and ties: each probe row meets only the run of its
    // key's build rows the comparison holds for (TPC-DS q72's inv_quantity_on_hand < cs_quantity), in either order.
    def side(n: Int, seed: Int, name: String) = JoinData.intKeys(spark, n, 4, seed = seed).selectExpr("k", "v",
      "case when v % 11 = 0 then null else cast(v * 7 % 97 as int) end as q",
      "case when v % 13 = 0 then null else date_add(date'2020-01-01', cast(v * 3 % 61 as int)) end as d").alias(name)
    val a = side(3000, 25, "a")
    val b = side(2000, 26, "b")
    for (st <- strategies; cmp <- Seq("a.q < b.q", "b.q <= a.q", "a.d > b.d", "b.d >= a.d")) {
      checkJoin(st)(a.join(b, expr(s"a.k = b.k AND $cmp AND (a.v > 5 OR b.v < 1995)"), "inner"))
      assertColumnar()
      val bands = rowmatchJoins(lastJoin).filter(_.simpleString(300).contains("band="))
      // A broadcast build is shared by the executor's tasks and keeps its row order: no band there.
      assert(bands.nonEmpty == (st != Broadcast), s"$cmp\n${planText(lastJoin)}")
    }
  }

  test("EXISTS and NOT EXISTS with a correlated non-equi condition (q21's shape): semi and anti joins") {
    l.createOrReplaceTempView("cl")
    r.createOrReplaceTempView("cr")
    for (st <- strategies; not <- Seq("", "NOT ")) {
      checkJoin(st, anyStrategy = true) {
        spark.sql(s"SELECT i, s, payload FROM cl WHERE ${not}EXISTS " +
          "(SELECT 1 FROM cr WHERE cr.i = cl.i AND cr.payload <> cl.payload AND cr.d > cl.d)")
      }
      assertColumnar()
    }
  }

  test("a condition the kernels do not support stays on Spark's row predicate, with the reason") {
    for (st <- strategies; jt <- Seq("inner", "left_anti", "full_outer")) {
      checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
        // lower is string-valued: no kernel (pmod, the example before, has one now)
        l.join(r, expr("l.i = r.i AND lower(cast(l.l + r.sh as string)) NOT LIKE '%3'"), jt)
      }
      val joins = rowmatchJoins(lastJoin).filter(_.condition.isDefined)
      assert(joins.nonEmpty && joins.forall(_.conditionRowReason.exists(_.contains("lower"))),
        joins.map(_.conditionRowReason).mkString("; "))
    }
  }

  /** (k, v): v is Int.MaxValue on a few rows when `big`, else small. */
  private def ints(big: Boolean): DataFrame = {
    val rows = (0 until 200).map(i => Row(i % 7, if (big && i % 50 == 0) Int.MaxValue else i))
    spark.createDataFrame(rows.asJava, StructType(Seq(StructField("k", IntegerType), StructField("v", IntegerType))))
  }

  test("ANSI: an overflow in a conjunct Spark does not evaluate is not raised; one it does is Spark's error") {
    val a = ints(big = true).alias("a")
    val b = ints(big = false).alias("b")
    withConf("spark.sql.ansi.enabled" -> "true") {
      // a.v - b.v < 1000 is false exactly where a.v + b.v overflows; both sides' columns, so not pushed down
      for (st <- strategies; jt <- Seq("inner", "left_outer", "left_semi", "left_anti")) {
        checkJoin(st)(a.join(b, expr("a.k = b.k AND a.v - b.v < 1000 AND a.v + b.v > 300"), jt))
        assertColumnar()
        checkJoin(st)(a.join(b, expr("a.k = b.k AND (a.v - b.v >= 1000 OR a.v + b.v > 300)"), jt))
        assertColumnar()
      }
      // Spark evaluates every matched pair of an inner or outer join (a semi/anti join stops at the first
      // passing pair, in its own build order, so whether it meets the overflow is Spark's order, not ours)
      for (st <- strategies; jt <- Seq("inner", "left_outer"); plugin <- Seq("false", "true")) {
        withConf(st.conf :+ ("spark.rowmatch.enabled" -> plugin): _*) {
          val e = intercept[Exception](a.join(b, expr("a.k = b.k AND a.v + b.v > 300"), jt).collect())
          assert(Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
            .exists {
            case t: SparkThrowable => t.getCondition == "ARITHMETIC_OVERFLOW"
            case _ => false
          }, s"plugin $plugin, ${st.name}, $jt: $e")
        }
      }
    }
  }
}
