package io.rowmatch.spark.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Row
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._

/** Every join type under every join strategy, on one int key with nulls and many duplicates on both sides. */
class JoinTypesSuite extends JoinQueryTest {

  private lazy val left = JoinData.intKeys(spark, 300, 12, seed = 1).toDF("k", "lv")
  private lazy val right = JoinData.intKeys(spark, 200, 15, seed = 2).toDF("k", "rv")

  for (st <- strategies; jt <- joinTypes) {
    test(s"$jt join, ${st.name}: int key with nulls and duplicates on both sides") {
      val rows = checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
        left.join(right, left("k") === right("k"), jt)
      }
      if (jt == "inner") {
        assert(rows.size > left.count(), "duplicates on both sides should give more rows than the left side has")
      }
    }
  }

  for (st <- strategies; jt <- joinTypes) {
    test(s"$jt join, ${st.name}: extra non-equi condition") {
      checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
        left.join(right, left("k") === right("k") && (left("lv") + right("rv")) % 3 =!= 0, jt)
      }
    }
  }

  for (jt <- Seq("left_semi", "left_anti"); cond <- Seq(false, true)) {
    test(s"$jt join, sort-merge, the left side smaller${if (cond) ", residual condition" else ""}: the left is " +
      "hashed and each of its rows kept or dropped once the right side is read") {
      // The right side many times the left's, so the statistics pick the left; nulls and duplicates on both sides
      // (a null-keyed left row is never matched: dropped by the semi join, kept by the anti join).
      val small = JoinData.intKeys(spark, 120, 40, seed = 11, nullKeys = 0.15).toDF("k", "lv")
      val big = JoinData.intKeys(spark, 3000, 60, seed = 12, nullKeys = 0.1).toDF("k", "rv")
      val on = small("k") === big("k")
      val rows = checkJoin(SortMerge) {
        small.join(big, if (cond) on && (small("lv") + big("rv")) % 7 =!= 0 else on, jt)
      }
      val joins = rowmatchJoins(lastJoin)
      assert(joins.exists(j => j.spec.buildLeft), s"the left side was not hashed in\n${planText(lastJoin)}")
      assert(rows.nonEmpty && rows.size < 120, s"$jt kept ${rows.size} of 120 rows")
    }
  }

  test("left semi join, sort-merge, the left side larger: the right is hashed as before") {
    checkJoin(SortMerge)(left.join(right, left("k") === right("k"), "left_semi"))
    assert(rowmatchJoins(lastJoin).forall(j => !j.spec.buildLeft), planText(lastJoin))
  }

  for (st <- strategies) {
    test(s"every join type, ${st.name}: multi-column keys of several types") {
      val l = JoinData.allTypes(spark, 150, seed = 3, domain = 4)
      val r = JoinData.allTypes(spark, 120, seed = 4, domain = 4)
      val keys = Seq("i", "s", "dec", "dt")
      for (jt <- joinTypes) {
        checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
          l.join(r, keys.map(c => l(c) === r(c)).reduce(_ && _), jt)
        }
      }
    }
  }

  for (c <- JoinData.keyColumns) {
    test(s"key of type ${JoinData.allTypesSchema(c).dataType.simpleString}: inner, full outer and anti") {
      val l = JoinData.allTypes(spark, 80, seed = 5)
      val r = JoinData.allTypes(spark, 60, seed = 6)
      for (jt <- Seq("inner", "full_outer", "left_anti")) {
        checkJoin(ShuffledHash) {
          l.join(r, l(c) === r(c), jt)
        }
      }
    }
  }

  test("NaN and -0.0 keys match as in Spark (NaN = NaN, -0.0 = 0.0), on every strategy") {
    val l = JoinData.allTypes(spark, 100, seed = 7, nulls = 0.2)
    val r = JoinData.allTypes(spark, 100, seed = 8, nulls = 0.2)
    for (st <- strategies; c <- Seq("f", "d"); jt <- Seq("inner", "left_outer", "left_semi", "left_anti")) {
      val rows = checkJoin(st)(l.join(r, l(c) === r(c), jt))
      if (jt == "inner") {
        assert(rows.exists(row => row.get(row.fieldIndex(c)) match {
          case d: Double => d.isNaN
          case f: Float => f.isNaN
          case _ => false
        }), "NaN keys should have matched")
      }
    }
  }

  test("null-safe <=> on one and on several columns, floats included") {
    val l = JoinData.allTypes(spark, 100, seed = 9, nulls = 0.3)
    val r = JoinData.allTypes(spark, 90, seed = 10, nulls = 0.3)
    for (st <- strategies; jt <- joinTypes) {
      checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer")(l.join(r, l("i") <=> r("i"), jt))
    }
    for (st <- strategies) {
      checkJoin(st)(l.join(r, l("d") <=> r("d") && l("s") <=> r("s"), "inner"))
      checkJoin(st)(l.join(r, l("f") <=> r("f") && l("l") === r("l"), "left_outer"))
    }
  }

  test("string keys with equal concatenations but different boundaries do not match") {
    val schema = StructType(Seq(StructField("a", StringType), StructField("b", StringType), StructField("x", IntegerType)))
    val l = spark.createDataFrame(Seq(Row("ab", "c", 1), Row("a", "bc", 2), Row("", "abc", 3), Row("abc", "", 4),
      Row(null, "abc", 5), Row("é", "", 6)).asJava, schema)
    val r = spark.createDataFrame(Seq(Row("a", "bc", 10), Row("abc", null, 11), Row("", "abc", 12),
      Row("\u00c3", "\u00a9", 13)).asJava, schema)
    for (st <- strategies; jt <- joinTypes) {
      val rows = checkJoin(st, anyStrategy = st == Broadcast && jt == "full_outer") {
        l.join(r, l("a") === r("a") && l("b") === r("b"), jt)
      }
      if (jt == "inner") {
        assert(rows.map(_.getInt(2)).sorted == Seq(2, 3), rows.toString)
      }
    }
  }

  test("empty build side and empty probe side, every join type") {
    val full = JoinData.intKeys(spark, 100, 10, seed = 11).toDF("k", "lv")
    val other = JoinData.intKeys(spark, 80, 10, seed = 12).toDF("k", "rv")
    val empty = other.filter(col("rv") < -1)
    for (st <- strategies; jt <- joinTypes) {
      val any = st == Broadcast && jt == "full_outer"
      checkJoin(st, anyStrategy = any)(full.join(empty, full("k") === empty("k"), jt))
      checkJoin(st, anyStrategy = any)(empty.join(full, empty("k") === full("k"), jt))
    }
  }

  test("skewed keys: one key holds most rows on both sides") {
    val skewed = spark.range(0, 2000).select(
      when(col("id") % 10 =!= 0, lit(7)).otherwise((col("id") % 97).cast("int")).as("k"), col("id").as("lv"))
    val small = spark.range(0, 300).select(
      when(col("id") % 3 === 0, lit(7)).otherwise((col("id") % 50).cast("int")).as("k"), col("id").as("rv"))
    for (st <- strategies; jt <- Seq("inner", "left_outer", "left_anti")) {
      checkJoin(st)(skewed.join(small, skewed("k") === small("k"), jt))
    }
  }

  test("a join feeding a Rowmatch aggregate") {
    for (st <- strategies) {
      val df = () => left.join(right, left("k") === right("k"), "inner").groupBy(left("k")).agg(count(lit(1)),
        sum(col("rv")))
      checkJoin(st)(df())
      withConf(st.conf: _*) {
        val nodes = executedNodes(df()).map(_.nodeName)
        assert(nodes.contains("RowmatchHashAggregate"), nodes.mkString(", "))
      }
    }
  }
}
