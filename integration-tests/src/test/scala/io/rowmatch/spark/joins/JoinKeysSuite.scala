package io.rowmatch.spark.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row}

/**
 * Keys that are not plain columns: Spark's casts between compatible key types and other deterministic key
 * expressions (computed by the join itself), and struct and array keys, with nested nulls, NaN and -0.0.
 */
class JoinKeysSuite extends JoinQueryTest {

  private lazy val left = JoinData.intKeys(spark, 300, 12, seed = 31).toDF("k", "lv")
  private lazy val right = JoinData.intKeys(spark, 200, 15, seed = 32).toDF("k", "rv")

  private def anyFor(st: Strategy, jt: String): Boolean = st == Broadcast && jt == "full_outer"

  for (st <- strategies; jt <- joinTypes) {
    test(s"$jt join, ${st.name}: int key = bigint key (Spark casts the int side)") {
      val r = right.select(col("k").cast("bigint").as("k"), col("rv"))
      checkJoin(st, anyStrategy = anyFor(st, jt))(left.join(r, left("k") === r("k"), jt))
    }
  }

  for (st <- strategies; jt <- joinTypes) {
    test(s"$jt join, ${st.name}: arithmetic key expressions on both sides, with an extra condition") {
      checkJoin(st, anyStrategy = anyFor(st, jt)) {
        left.join(right, (left("k") + 1) === (right("k") * 2 - 3) && left("lv") =!= right("rv"), jt)
      }
    }
  }

  for (st <- strategies) {
    test(s"every join type, ${st.name}: computed keys mixed with column keys, null-safe included") {
      val l = JoinData.allTypes(spark, 120, seed = 33, nulls = 0.25, domain = 4)
      val r = JoinData.allTypes(spark, 100, seed = 34, nulls = 0.25, domain = 4)
      for (jt <- joinTypes) {
        checkJoin(st, anyStrategy = anyFor(st, jt)) {
          l.join(r, upper(l("s")) === upper(r("s")) && l("i") === r("b") && l("dt") === r("dt"), jt)
        }
        checkJoin(st, anyStrategy = anyFor(st, jt)) {
          l.join(r, (l("l") + 1) <=> (r("l") + 1) && concat(l("s"), lit("|")) <=> concat(r("s"), lit("|")), jt)
        }
      }
    }
  }

  test("computed floating-point keys: int = double casts, arithmetic on doubles, NaN and -0.0") {
    val l = JoinData.allTypes(spark, 100, seed = 35, nulls = 0.2)
    val r = JoinData.allTypes(spark, 100, seed = 36, nulls = 0.2)
    for (st <- strategies; jt <- Seq("inner", "left_outer", "left_semi", "left_anti")) {
      checkJoin(st)(l.join(r, l("i") === r("d"), jt))
      checkJoin(st)(l.join(r, (l("d") * 2) === (r("d") + r("d")), jt))
      checkJoin(st)(l.join(r, l("f").cast("double") <=> r("d"), jt))
    }
  }

  test("decimal keys of different precision and scale (Spark widens both)") {
    val l = JoinData.allTypes(spark, 100, seed = 37)
    val r = JoinData.allTypes(spark, 100, seed = 38)
    for (st <- strategies; jt <- Seq("inner", "full_outer", "left_anti")) {
      checkJoin(st, anyStrategy = anyFor(st, jt))(l.join(r, l("dec") === r("big"), jt))
      checkJoin(st, anyStrategy = anyFor(st, jt))(l.join(r, l("dec") === r("l"), jt))
    }
  }

  test("computed date, timestamp and string keys (time zone aware casts)") {
    val l = JoinData.allTypes(spark, 100, seed = 39, nulls = 0.2)
    val r = JoinData.allTypes(spark, 100, seed = 40, nulls = 0.2)
    for (st <- strategies; jt <- Seq("inner", "left_outer", "left_anti")) {
      checkJoin(st)(l.join(r, l("ts").cast("date") === r("dt"), jt))
      checkJoin(st)(l.join(r, l("dt").cast("string") === r("dt").cast("string"), jt))
      checkJoin(st)(l.join(r, l("ntz") === r("dt"), jt))
    }
  }

  // ---- struct and array keys ----

  private val nestedSchema = StructType(Seq(
    StructField("st", StructType(Seq(StructField("a", IntegerType), StructField("s", StringType)))),
    StructField("fst", StructType(Seq(StructField("x", DoubleType), StructField("y", FloatType)))),
    StructField("arr", ArrayType(IntegerType)),
    StructField("darr", ArrayType(DoubleType)),
    StructField("sarr", ArrayType(StructType(Seq(StructField("a", IntegerType), StructField("s", StringType))))),
    StructField("m", MapType(StringType, IntegerType)),
    StructField("id", IntegerType)))

  private val doubles: Array[Any] = Array(0.0, -0.0, Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000777L),
    1.5, null)
  private val floats: Array[Any] = Array(0.0f, -0.0f, Float.NaN, java.lang.Float.intBitsToFloat(0x7fc00777), 1.5f, null)

  /** Small domains so nested values repeat: nulls at the top and inside, NaN payloads, -0.0, empty arrays. */
  private def nested(n: Int, seed: Long): DataFrame = {
    val rnd = new scala.util.Random(seed)
    def pick[T](xs: Array[T]): T = xs(rnd.nextInt(xs.length))
    def maybe(v: => Any, p: Double = 0.15): Any = if (rnd.nextDouble() < p) null else v
    val rows = (0 until n).map { id =>
      Row(
        maybe(Row(maybe(rnd.nextInt(3), 0.3), maybe(pick(Array("", "a", "ab", "é")), 0.3))),
        maybe(Row(pick(doubles), pick(floats))),
        maybe(Seq.fill(rnd.nextInt(3))(maybe(rnd.nextInt(2), 0.3))),
        maybe(Seq.fill(rnd.nextInt(3))(pick(doubles))),
        maybe(Seq.fill(rnd.nextInt(2))(maybe(Row(maybe(rnd.nextInt(2), 0.3), maybe("x", 0.3)), 0.2))),
        maybe(Map("k" -> rnd.nextInt(3))),
        id)
    }
    spark.createDataFrame(rows.asJava, nestedSchema)
  }

  // Several batches per partition and per broadcast build side (batchSize 64), and several tasks probing
  // one broadcast build side at once: nested values are copied from vectors shared between threads.
  private lazy val nl = nested(600, 41).repartition(4)
  private lazy val nr = nested(400, 42)

  for (st <- strategies) {
    test(s"every join type, ${st.name}: struct, array and array-of-struct keys with nested nulls, map column carried") {
      for (c <- Seq("st", "arr", "sarr"); jt <- joinTypes) {
        val rows = checkJoin(st, anyStrategy = anyFor(st, jt))(nl.join(nr, nl(c) === nr(c), jt))
        if (jt == "inner") {
          assert(rows.nonEmpty, s"$c: nested keys should have matched")
        }
      }
    }
  }

  test("struct and array keys holding floats: NaN = NaN and -0.0 = 0.0 inside, as Spark normalizes them") {
    for (st <- strategies; c <- Seq("fst", "darr"); jt <- Seq("inner", "left_outer", "left_semi", "left_anti")) {
      checkJoin(st)(nl.join(nr, nl(c) === nr(c), jt))
    }
  }

  test("null-safe <=> on struct and array keys, and a struct built from columns") {
    for (st <- strategies; jt <- Seq("inner", "full_outer", "left_anti")) {
      checkJoin(st, anyStrategy = anyFor(st, jt))(nl.join(nr, nl("st") <=> nr("st"), jt))
      checkJoin(st, anyStrategy = anyFor(st, jt))(nl.join(nr, nl("arr") <=> nr("arr"), jt))
      checkJoin(st, anyStrategy = anyFor(st, jt))(nl.join(nr, nl("fst") <=> nr("fst"), jt))
      checkJoin(st, anyStrategy = anyFor(st, jt)) {
        nl.join(nr, struct(nl("id") % 7, nl("st.s")) === struct(nr("id") % 5, nr("st.s")), jt)
      }
    }
  }
}
