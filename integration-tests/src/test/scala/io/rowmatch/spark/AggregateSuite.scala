package io.rowmatch.spark

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row}

class AggregateSuite extends RowmatchQueryTest {

  private def frame(schema: StructType, rows: Seq[Row], partitions: Int = 3): DataFrame =
    spark.createDataFrame(rows.asJava, schema).repartition(partitions)

  private lazy val mixedSchema = StructType(Seq(
    StructField("i", IntegerType), StructField("l", LongType), StructField("d", DoubleType),
    StructField("s", StringType), StructField("b", BooleanType)))

  /** 500 rows with nulls, repeats, NaN and signed zeros in d, multibyte and empty strings. */
  private lazy val mixedRows: Seq[Row] = {
    val rnd = new scala.util.Random(42)
    val strings = Seq("a", "b", "", "ünï", "日本", "ab", null)
    val doubles = Seq(0.0, -0.0, Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000123L), 1.5,
      -2.25, Double.PositiveInfinity, null)
    (0 until 500).map { _ =>
      Row(
        if (rnd.nextInt(10) == 0) null else rnd.nextInt(7) - 3,
        if (rnd.nextInt(10) == 0) null else rnd.nextLong() % 1000,
        doubles(rnd.nextInt(doubles.size)),
        strings(rnd.nextInt(strings.size)),
        if (rnd.nextInt(5) == 0) null else rnd.nextBoolean())
    }
  }

  private def mixed: DataFrame = frame(mixedSchema, mixedRows)

  test("distinct on several columns with nulls") {
    checkAnswerAndOperator(mixed.select("i", "s", "b").distinct(), minOperators = 2)
  }

  test("distinct on a double key: NaN payloads, -0.0 and 0.0, null group like Spark") {
    val rows = checkAnswerAndOperator(mixed.select("d").distinct(), minOperators = 2)
    // 0.0/-0.0 one group, both NaNs one group, 1.5, -2.25, Infinity, null
    assert(rows.size == 6)
  }

  test("group by double key with functions") {
    checkAnswerAndOperator(
      mixed.groupBy("d").agg(count("*"), count("i"), sum("l"), min("i"), max("l"), avg("i")),
      minOperators = 2)
  }

  test("count, sum, avg, min, max on int, long and double with nulls") {
    checkAnswerAndOperator(
      mixed.groupBy("s").agg(count("*"), count("l"), expr("count(i, l)"), sum("i"), sum("l"), sum("d"),
        avg("i"), avg("l"), avg("d"), min("i"), max("i"), min("l"), max("l"), min("d"), max("d")),
      minOperators = 2, tolerance = 1e-12)
  }

  test("global aggregate (no keys)") {
    checkAnswerAndOperator(mixed.agg(count("*"), sum("l"), min("d"), max("i"), avg("l")), minOperators = 2,
      tolerance = 1e-12)
  }

  test("empty input: grouped gives no rows, global gives one row") {
    // AQE would otherwise replace the final stage over an empty shuffle by an empty relation.
    withConf("spark.sql.adaptive.optimizer.excludedRules" ->
        "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation") {
    // A filter nothing passes, evaluated at run time (a local relation would be folded away).
    val empty = spark.range(0, 50, 1, 3).filter("id < 0")
      .selectExpr("cast(id as int) i", "id as l", "cast(id as double) d", "cast(id as string) s")
    assert(checkAnswerAndOperator(empty.groupBy("s").agg(count("*"), sum("l")), minOperators = 2).isEmpty)
    val global = checkAnswerAndOperator(empty.agg(count("*"), sum("l"), avg("d"), min("i")), minOperators = 2)
    assert(global == Seq(Row(0L, null, null, null)))
    assert(checkAnswerAndOperator(empty.select("i", "s").distinct(), minOperators = 2).isEmpty)
    }
  }

  test("one group and all-distinct groups") {
    val same = frame(StructType(Seq(StructField("k", IntegerType), StructField("v", LongType))),
      (0 until 300).map(i => Row(7, i.toLong)))
    val one = checkAnswerAndOperator(same.groupBy("k").agg(count("*"), sum("v")), exactOperators = Some(2))
    assert(one == Seq(Row(7, 300L, 44850L)))
    val ids = spark.range(0, 3000, 1, 3).withColumn("v", col("id") * 2)
    val all = checkAnswerAndOperator(ids.groupBy("id").agg(sum("v"), count("*")), exactOperators = Some(2))
    assert(all.size == 3000)
  }

  test("mixed plan: a vanilla partial stage feeds a Rowmatch final stage through Spark's buffers") {
    // first() FILTER keeps the partial vanilla (only the partial applies it); the final is Rowmatch.
    val rows = checkAnswerAndOperator(mixed.groupBy("b").agg(count("*"), sum("l"), avg("d"), min("i"),
      expr("count(*) FILTER (WHERE i > 0)"), expr("first(b) FILTER (WHERE i > 0)")), exactOperators = Some(1),
      tolerance = 1e-12)
    assert(rows.size == 3)
  }

  test("FILTER clauses: rows the filter rejects (false or null) are skipped, as in Spark's stage reading rows") {
    // b is null in a fifth of the rows (a null filter rejects them); i > 100 rejects every row of every group
    val rows = checkAnswerAndOperator(mixed.groupBy("b").agg(
      expr("count(*) FILTER (WHERE d > 0)"), expr("count(i) FILTER (WHERE b)"),
      expr("count(i, l) FILTER (WHERE s = '')"), expr("sum(l) FILTER (WHERE i > 0)"),
      expr("sum(d) FILTER (WHERE i IS NULL)"), expr("avg(i) FILTER (WHERE l < 0)"),
      expr("avg(d) FILTER (WHERE s <> 'a')"), expr("min(s) FILTER (WHERE i = 2)"),
      expr("max(l) FILTER (WHERE NOT b)"), expr("max(d) FILTER (WHERE i < 0)"),
      expr("stddev(d) FILTER (WHERE l > 0)"), expr("var_pop(d) FILTER (WHERE i >= 0)"),
      expr("last(b, true) FILTER (WHERE i > 0)"), expr("sum(i) FILTER (WHERE i > 100)"),
      expr("count(*) FILTER (WHERE i > 100)"), sum("l")),
      exactOperators = Some(2), tolerance = 1e-12)
    assert(rows.size == 3 && rows.forall(r => r.isNullAt(14) && r.getLong(15) == 0L), rows)
    // one group (no keys), a computed filter, and the same function with and without a filter
    checkAnswerAndOperator(mixed.agg(expr("sum(l) FILTER (WHERE l * 2 + i > 10)"), sum("l"),
      expr("count(*) FILTER (WHERE s LIKE '%b%')"), count("*")), exactOperators = Some(2))
    // decimals: Spark's sum and avg result types; a group nothing passes gives null
    val dec = frame(decSchema, decRows)
    checkAnswerAndOperator(dec.groupBy("k").agg(expr("sum(d) FILTER (WHERE w > 0)"),
      expr("avg(e) FILTER (WHERE k % 2 = 0)"), expr("sum(w) FILTER (WHERE d IS NOT NULL)")), exactOperators = Some(2))
    // next to a DISTINCT function (Spark's one-distinct plan applies the filter in its first stage)
    checkAnswerAndOperator(mixed.groupBy("b").agg(countDistinct("i"), expr("sum(l) FILTER (WHERE i > 0)")),
      minOperators = 2)
    // first() reads its input only until set, so its FILTER cannot become its input: vanilla, with the reason
    val df = withConf("spark.rowmatch.enabled" -> "true") {
      val d = mixed.groupBy("b").agg(expr("first(l) FILTER (WHERE i > 0)"))
      d.collect()
      d
    }
    assert(fallbackReasons(df).exists(_.contains("aggregate FILTER clause")), fallbackReasons(df))
  }

  test("FILTER clauses under ANSI: a filter's error is Spark's; a computed input under a filter stays vanilla") {
    val big = frame(StructType(Seq(StructField("k", IntegerType), StructField("v", LongType))),
      Seq(Row(1, Long.MaxValue), Row(1, 1L), Row(2, 3L)), partitions = 1)
    withConf("spark.sql.ansi.enabled" -> "true") {
      // the filter is evaluated on every row, by Spark and by the kernels below the Rowmatch aggregate
      val rows = checkAnswerAndOperator(big.groupBy("k").agg(expr("sum(v) FILTER (WHERE v < 100)"),
        expr("count(*) FILTER (WHERE v < 100)")), exactOperators = Some(2))
      assert(rows.toSet == Set(Row(1, 1L, 1L), Row(2, 3L, 1L)), rows)
      val failing = big.groupBy("k").agg(expr("sum(v) FILTER (WHERE v * 2 > 0)"))
      val vanilla = withConf("spark.rowmatch.enabled" -> "false")(intercept[Exception](failing.collect()))
      val ours = withConf("spark.rowmatch.enabled" -> "true") {
        val df = big.groupBy("k").agg(expr("sum(v) FILTER (WHERE v * 2 > 0)"))
        val e = intercept[Exception](df.collect())
        assert(rowmatchAggregates(df) == 2, df.queryExecution.executedPlan.treeString)
        e
      }
      assert(String.valueOf(vanilla.getMessage).contains("ARITHMETIC_OVERFLOW"), vanilla)
      assert(String.valueOf(ours.getMessage).contains("ARITHMETIC_OVERFLOW"), ours)
      // Spark's generated code evaluates sum's input before the filter (subexpression elimination), max's after
      // it: a computed input under a filter keeps the partial vanilla, which does whichever Spark does
      val computed = withConf("spark.rowmatch.enabled" -> "true") {
        val df = big.groupBy("k").agg(expr("max(v * 2) FILTER (WHERE v < 100)"))
        assert(df.collect().toSet == Set(Row(1, 2L), Row(2, 6L)))
        df
      }
      assert(fallbackReasons(computed).exists(_.contains("FILTER clause over the computed input")),
        fallbackReasons(computed))
    }
  }

  test("computed group keys (a literal key) run through Spark's projection below the aggregate") {
    // Spark keeps a foldable key as an expression in the aggregate; it is computed below ours.
    val rows = checkAnswerAndOperator(mixed.withColumn("k", lit(1)).groupBy("k").agg(count("*"), sum("l"),
      avg("d"), min("i")), exactOperators = Some(2), tolerance = 1e-12)
    assert(rows.size == 1)
    checkAnswerAndOperator(mixed.withColumn("k", lit(null).cast("string")).groupBy("k", "b").agg(count("*")),
      exactOperators = Some(2))
  }

  test("count(distinct x)") {
    checkAnswerAndOperator(mixed.groupBy("s").agg(countDistinct("i")), minOperators = 2)
    checkAnswerAndOperator(mixed.agg(countDistinct("i", "b")), minOperators = 2)
  }

  test("count(distinct x) with other functions: all four stages, the third merging and starting at once") {
    // Spark plans partial, partial-merge, (partial-merge of sum/max + partial of count distinct), final.
    def q = mixed.groupBy("s").agg(countDistinct("i"), sum("l"), max("d"), avg("l"), count("*"))
    checkAnswerAndOperator(q, exactOperators = Some(4))
    // keyless, over two distinct columns, with a decimal sum and a statistic
    def q2 = mixed.selectExpr("i", "b", "cast(l as decimal(20, 2)) dec", "l").agg(countDistinct("i", "b"),
      sum("dec"), stddev_pop("l"), min("l"))
    checkAnswerAndOperator(q2, exactOperators = Some(4), tolerance = 1e-12)
    // vanilla's final (an interval result): the three Rowmatch stages below still meet Spark's buffers
    def q3 = mixed.groupBy("s").agg(countDistinct("i"), sum("l"), expr("make_dt_interval(0, 0, 0, count(*))"))
    checkAnswerAndOperator(q3, exactOperators = Some(3))
  }

  test("dropDuplicates on a subset of columns: keys unique, each output row is an input row") {
    val out = checkAnswerAndOperator(mixed.coalesce(1).dropDuplicates("i", "b"), minOperators = 1)
    val keys = out.map(r => (r.get(0), r.get(4)))
    assert(keys.distinct.size == keys.size)
    val input = mixedRows.map(_.toSeq.map(String.valueOf)).toSet
    assert(out.forall(r => input.contains(r.toSeq.map(String.valueOf))))
    // The same over several partitions: which row is first depends on the shuffle, so check the property only.
    val spread = withConf("spark.rowmatch.enabled" -> "true") {
      val df = mixed.dropDuplicates("s")
      assert(rowmatchAggregates(df) >= 1, df.queryExecution.executedPlan.treeString)
      df.collect().toSeq
    }
    assert(spread.map(_.get(3)).distinct.size == spread.size)
    assert(spread.size == mixedRows.map(_.get(3)).distinct.size)
    assert(spread.forall(r => input.contains(r.toSeq.map(String.valueOf))))
  }

  test("first and first(ignoreNulls) against a reference over one ordered partition") {
    // Spark's first() depends on row order; over one partition in input order it is defined, so compare
    // with a direct computation (vanilla Spark sorts before its sort aggregate, which may reorder ties).
    val df = spark.createDataFrame(mixedRows.asJava, mixedSchema).coalesce(1)
      .groupBy("b").agg(first("s"), first("s", ignoreNulls = true), first("d"), first("l", ignoreNulls = true))
    val actual = withConf("spark.rowmatch.enabled" -> "true") {
      val rows = df.collect().toSeq
      assert(rowmatchAggregates(df) >= 1, df.queryExecution.executedPlan.treeString)
      rows
    }
    val expected = mixedRows.groupBy(_.get(4)).map { case (b, rs) =>
      Row(b, rs.head.get(3), rs.map(_.get(3)).find(_ != null).orNull, rs.head.get(2),
        rs.map(_.get(1)).find(_ != null).orNull)
    }.toSeq
    RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 0.0, context = "")
  }

  test("sum of bigint: overflow raises under ANSI and wraps when ANSI is off") {
    val big = frame(StructType(Seq(StructField("k", IntegerType), StructField("v", LongType))),
      Seq(Row(1, Long.MaxValue), Row(1, 1L), Row(2, 5L), Row(2, null)), partitions = 1)
    withConf("spark.sql.ansi.enabled" -> "true") {
      val vanilla = withConf("spark.rowmatch.enabled" -> "false") {
        intercept[Exception](big.groupBy("k").agg(sum("v")).collect())
      }
      val ours = withConf("spark.rowmatch.enabled" -> "true") {
        intercept[Exception](big.groupBy("k").agg(sum("v")).collect())
      }
      assert(String.valueOf(vanilla.getMessage).contains("ARITHMETIC_OVERFLOW"))
      assert(String.valueOf(ours.getMessage).contains("ARITHMETIC_OVERFLOW"), ours)
    }
    withConf("spark.sql.ansi.enabled" -> "false") {
      val rows = checkAnswerAndOperator(big.groupBy("k").agg(sum("v")), minOperators = 2)
      assert(rows.toSet == Set(Row(1, Long.MinValue), Row(2, 5L)))
    }
  }

  test("vectorized Parquet input (OnHeapColumnVector batches) converts to Arrow") {
    val dir = java.nio.file.Files.createTempDirectory("rowmatch-parquet").toFile
    try {
      mixed.write.mode("overwrite").parquet(dir.getAbsolutePath)
      checkAnswerAndOperator(spark.read.parquet(dir.getAbsolutePath).groupBy("i", "s").agg(count("*"), sum("l")),
        minOperators = 2)
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(dir)
    }
  }

  test("unsupported function falls back with its reason; the rest of the plan still runs") {
    withConf("spark.rowmatch.explainFallback" -> "true") {
      val query = () => mixed.groupBy("s").agg(kurtosis("l"))
      val expected = withConf("spark.rowmatch.enabled" -> "false")(query().collect().toSeq)
      val df = query()
      val actual = df.collect().toSeq
      RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 1e-12, context = "")
      assert(rowmatchAggregates(df) == 0)
      val reasons = fallbackReasons(df)
      assert(reasons.exists(_.contains("aggregate function kurtosis is not supported")), reasons)
    }
  }

  test("EXPLAIN EXTENDED lists Rowmatch operators and the fallback reasons") {
    withConf("spark.sql.extendedExplainProviders" -> "io.rowmatch.spark.rules.RowmatchExplainInfo") {
      mixed.createOrReplaceTempView("explain_mixed")
      val text = spark.sql(
        "EXPLAIN EXTENDED SELECT s, kurtosis(l), count(*) FROM explain_mixed GROUP BY s UNION ALL " +
          "SELECT s, 0.0, count(*) FROM (SELECT DISTINCT s, i FROM explain_mixed) GROUP BY s")
        .collect().map(_.getString(0)).mkString("\n")
      assert(text.contains("Rowmatch fallbacks ("), text)
      assert(text.contains("aggregate function kurtosis is not supported"), text)
      assert(text.contains("RowmatchHashAggregate"), text)
      assert(text.contains("replaces="), text)
      // the same section from the Dataset API, with no operator replaced when the plugin is off
      val off = withConf("spark.rowmatch.enabled" -> "false") {
        mixed.groupBy("s").agg(count("*")).queryExecution
          .explainString(org.apache.spark.sql.execution.ExtendedMode)
      }
      assert(off.contains("Rowmatch operators (0)"), off)
    }
    withConf("spark.sql.extendedExplainProviders" -> "") {
      val text = spark.sql("EXPLAIN EXTENDED SELECT s, kurtosis(l) FROM explain_mixed GROUP BY s")
        .collect().map(_.getString(0)).mkString("\n")
      assert(!text.contains("Rowmatch fallbacks"), text)
    }
  }

  private lazy val decSchema = StructType(Seq(StructField("k", IntegerType),
    StructField("d", DecimalType(12, 2)), StructField("w", DecimalType(30, 5)), StructField("e", DecimalType(38, 0))))

  /** Decimals of precision 12 (result 22), 30 (result 38) and 38 (result 38): nulls, signs, an all-null group. */
  private lazy val decRows: Seq[Row] = {
    val rnd = new scala.util.Random(7)
    def bd(s: String) = new java.math.BigDecimal(s)
    (0 until 300).map { n =>
      val k = n % 9
      Row(k,
        if (k == 8 || rnd.nextInt(8) == 0) null else bd(f"${rnd.nextInt(2000000000) - 1000000000}%d.${rnd.nextInt(100)}%02d"),
        if (k == 8 || rnd.nextInt(8) == 0) null else bd(s"${rnd.nextLong() % 100000000000000000L}${rnd.nextInt(1000)}.${rnd.nextInt(100000)}").setScale(5),
        if (rnd.nextInt(8) == 0) null else bd(s"${rnd.nextLong()}${math.abs(rnd.nextLong() % 100000000000L)}"))
    }
  }

  test("decimal sum: Spark's result type, exact values, nulls and empty groups, precision above 18") {
    val dec = frame(decSchema, decRows)
    val rows = checkAnswerAndOperator(dec.groupBy("k").agg(sum("d"), sum("w"), sum("e"), count("*")),
      minOperators = 2)
    assert(rows.exists(r => r.getInt(0) == 8 && r.isNullAt(1) && r.isNullAt(2)), rows)
    val t = dec.groupBy("k").agg(sum("d"), sum("w")).schema
    assert(t(1).dataType == DecimalType(22, 2) && t(2).dataType == DecimalType(38, 5), t)
    checkAnswerAndOperator(dec.agg(sum("w"), sum("d")), minOperators = 2)
    // empty input (a range filter is not folded away at planning time)
    val none = spark.range(0, 50, 1, 2).selectExpr("cast(id % 3 as int) k", "cast(id * 1.5 as decimal(30, 5)) w")
      .filter("k < 0")
    // (AQE replaces a grouped aggregate over an empty stage by an empty relation: no operator to find)
    assert(checkAnswerAndOperator(none.groupBy("k").agg(sum("w")), minOperators = 0).isEmpty)
    assert(checkAnswerAndOperator(none.agg(sum("w")), minOperators = 1) == Seq(Row(null)))
  }

  test("decimal sum overflow: error under ANSI as Spark raises it, null when ANSI is off") {
    val big = new java.math.BigDecimal("9" * 37 + "0")
    // group 1 overflows decimal(38,0) (within a partition or when merging), group 2 does not
    val over = frame(StructType(Seq(StructField("k", IntegerType), StructField("e", DecimalType(38, 0)))),
      Seq(Row(1, big), Row(1, big), Row(1, big), Row(1, big), Row(2, big), Row(2, null),
        Row(2, java.math.BigDecimal.ONE.negate())), partitions = 2)
    withConf("spark.sql.ansi.enabled" -> "true") {
      val vanilla = withConf("spark.rowmatch.enabled" -> "false") {
        intercept[Exception](over.groupBy("k").agg(sum("e")).collect())
      }
      val ours = withConf("spark.rowmatch.enabled" -> "true") {
        val df = over.groupBy("k").agg(sum("e"))
        val e = intercept[Exception](df.collect())
        assert(rowmatchAggregates(df) >= 1)
        e
      }
      def errorClass(e: Throwable): String = Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
        .collectFirst { case t: org.apache.spark.SparkThrowable if t.getCondition != null => t.getCondition }
        .getOrElse("")
      assert(errorClass(vanilla).nonEmpty, vanilla)
      assert(errorClass(ours) == errorClass(vanilla), s"$ours\nvs vanilla\n$vanilla")
    }
    withConf("spark.sql.ansi.enabled" -> "false") {
      val rows = checkAnswerAndOperator(over.groupBy("k").agg(sum("e")), minOperators = 2)
      assert(rows.toSet == Set(Row(1, null), Row(2, big.subtract(java.math.BigDecimal.ONE))), rows)
    }
  }

  test("decimal sum mixes with vanilla stages in both directions") {
    val dec = frame(decSchema, decRows)
    // vanilla partial (first() FILTER, which only the partial applies) feeding a Rowmatch final
    val vanillaFirst = checkAnswerAndOperator(
      dec.groupBy("k").agg(expr("sum(w) FILTER (WHERE d > 0)"), expr("sum(d) FILTER (WHERE w < 0)"),
        expr("first(k) FILTER (WHERE d > 0)")),
      exactOperators = Some(1))
    assert(vanillaFirst.size == 9)
    // Rowmatch partial feeding a vanilla final (its output is an interval, which we do not produce)
    checkAnswerAndOperator(
      dec.groupBy("k").agg(expr("make_dt_interval(0, 0, 0, cast(sum(d) / 1000000 as decimal(18, 6)))").as("iv"),
        sum("w")),
      exactOperators = Some(1))
  }

  test("computed aggregate inputs run through Spark's projection below the Rowmatch aggregate") {
    val dec = frame(decSchema, decRows).withColumn("disc", (col("k") % 3 / 100).cast(DecimalType(12, 2)))
    // TPC-H style: sum(price * (1 - discount)) over decimals, with repeated and plain inputs mixed in
    val rows = checkAnswerAndOperator(
      dec.groupBy("k").agg(sum(col("d") * (lit(1) - col("disc"))), sum(col("d") * (lit(1) - col("disc"))),
        sum(col("w")), count(col("d") + col("disc")), min(col("k") * 2), max(abs(col("k")))),
      minOperators = 2)
    assert(rows.size == 9)
    checkAnswerAndOperator(mixed.groupBy("s").agg(sum(col("l") * 2 + col("i")), avg(col("l") / 3),
      max(length(col("s"))), min(col("d") * -1.0)), minOperators = 2, tolerance = 1e-12)
    // an expression that fails under ANSI fails the same way
    val big = frame(StructType(Seq(StructField("k", IntegerType), StructField("v", LongType))),
      Seq(Row(1, Long.MaxValue), Row(2, 1L)), partitions = 1)
    withConf("spark.sql.ansi.enabled" -> "true") {
      val vanilla = withConf("spark.rowmatch.enabled" -> "false") {
        intercept[Exception](big.groupBy("k").agg(sum(col("v") * 2)).collect())
      }
      val ours = withConf("spark.rowmatch.enabled" -> "true") {
        val df = big.groupBy("k").agg(sum(col("v") * 2))
        val e = intercept[Exception](df.collect())
        assert(rowmatchAggregates(df) >= 1, df.queryExecution.executedPlan.treeString)
        e
      }
      assert(String.valueOf(vanilla.getMessage).contains("ARITHMETIC_OVERFLOW"), vanilla)
      assert(String.valueOf(ours.getMessage).contains("ARITHMETIC_OVERFLOW"), ours)
    }
    // first() stops evaluating its input once set, so a computed first input stays vanilla
    val df = withConf("spark.rowmatch.enabled" -> "true") {
      val d = mixed.groupBy("s").agg(first(col("l") + 1), sum("l"))
      d.collect()
      d
    }
    assert(fallbackReasons(df).exists(_.contains("is an expression, not a column")), fallbackReasons(df))
  }

  test("decimal avg: Spark's types and rounding, nulls, overflow under ANSI on and off, vanilla mixing") {
    val dec = frame(decSchema, decRows)
    val rows = checkAnswerAndOperator(dec.groupBy("k").agg(avg("d"), avg("w"), avg("e"), avg(col("d") * 3)),
      minOperators = 2)
    assert(rows.exists(r => r.getInt(0) == 8 && r.isNullAt(1) && r.isNullAt(2)), rows)
    val t = dec.groupBy("k").agg(avg("d"), avg("w")).schema
    assert(t(1).dataType == DecimalType(16, 6) && t(2).dataType == DecimalType(34, 9), t)
    checkAnswerAndOperator(dec.agg(avg("w"), avg("d")), minOperators = 2)
    // a vanilla partial (first() FILTER) feeding a Rowmatch final, and a Rowmatch partial feeding a vanilla final
    checkAnswerAndOperator(dec.groupBy("k").agg(expr("avg(w) FILTER (WHERE d > 0)"),
      expr("first(k) FILTER (WHERE d > 0)")), exactOperators = Some(1))
    checkAnswerAndOperator(dec.groupBy("k").agg(
      expr("make_dt_interval(0, 0, 0, cast(avg(d) / 1000000 as decimal(18, 6)))").as("iv"), avg("w")),
      exactOperators = Some(1))
    val big = new java.math.BigDecimal("9" * 37 + "0")
    val over = frame(StructType(Seq(StructField("k", IntegerType), StructField("e", DecimalType(38, 0)))),
      Seq(Row(1, big), Row(1, big), Row(1, big), Row(1, big), Row(2, big), Row(2, null),
        Row(2, java.math.BigDecimal.ONE.negate())), partitions = 2)
    withConf("spark.sql.ansi.enabled" -> "true") {
      def condition(e: Throwable): String = Iterator.iterate(e)(_.getCause).takeWhile(_ != null)
        .collectFirst { case t: org.apache.spark.SparkThrowable if t.getCondition != null => t.getCondition }
        .getOrElse("")
      val vanilla = withConf("spark.rowmatch.enabled" -> "false") {
        intercept[Exception](over.groupBy("k").agg(avg("e")).collect())
      }
      val ours = withConf("spark.rowmatch.enabled" -> "true") {
        val df = over.groupBy("k").agg(avg("e"))
        val e = intercept[Exception](df.collect())
        assert(rowmatchAggregates(df) >= 1)
        e
      }
      assert(condition(vanilla).nonEmpty && condition(ours) == condition(vanilla), s"$ours\nvs vanilla\n$vanilla")
    }
    withConf("spark.sql.ansi.enabled" -> "false") {
      val r = checkAnswerAndOperator(over.groupBy("k").agg(avg("e")), minOperators = 2)
      assert(r.exists(x => x.getInt(0) == 1 && x.isNullAt(1)), r)
    }
  }

  test("a final aggregate's result expressions on the columnar kernels: decimal avg halves, TPC-H shapes, ANSI") {
    // Group k holds 2^k values, one cent (minus one for odd k) and zeros: avg is +-0.01 / 2^k, a half at the 7th
    // decimal for k = 5, rounded half up (away from zero) as Spark does; plus random groups with nulls.
    val rnd = new scala.util.Random(17)
    val cent = new java.math.BigDecimal("0.01")
    val halves = (0 until 8).flatMap(k => (0 until (1 << k)).map(i =>
      Row(k, if (i > 0) java.math.BigDecimal.ZERO.setScale(2) else if (k % 2 == 0) cent else cent.negate())))
    val random = (0 until 400).map(n => Row(8 + n % 13,
      if (rnd.nextInt(6) == 0) null else new java.math.BigDecimal(rnd.nextInt(2000000) - 1000000).movePointLeft(2)))
    val df = frame(StructType(Seq(StructField("k", IntegerType), StructField("d", DecimalType(12, 2)))),
      halves ++ random, partitions = 3)
    def results(q: DataFrame): String =
      executedNodes(q).filter(_.nodeName == "RowmatchHashAggregate").map(_.simpleString(100)).mkString("\n")
    // q17's 0.2 * avg and sum / 7.0 (decimal literals, as in SQL), q1's avg, a comparison
    def shapes = df.groupBy("k").agg(avg("d").as("a"), expr("0.2 * avg(d)").as("fifth"),
      expr("sum(d) / 7.0").as("yearly"), (avg("d") > 0).as("pos"), expr("-avg(d) + 1").as("neg"),
      expr("avg(cast(d as decimal(15, 2)))").as("wide")) // TPC-H's type: a decimal(19, 6) result
    val rows = checkAnswerAndOperator(shapes, minOperators = 2)
    assert(rows.exists(r => r.getInt(0) == 5 && r.getDecimal(1) == new java.math.BigDecimal("-0.000313")), rows)
    assert(rows.exists(r => r.getInt(0) == 6 && r.getDecimal(1) == new java.math.BigDecimal("0.000156")), rows)
    val ours = withConf("spark.rowmatch.enabled" -> "true") { val q = shapes; q.collect(); q }
    assert(results(ours).contains("(results columnar)"), results(ours))
    // a result expression the kernels do not evaluate keeps Spark's row projection, and says why
    def hexed = df.groupBy("k").agg(hex(sum("d")).as("h"), avg("d"))
    checkAnswerAndOperator(hexed, minOperators = 2)
    val byRows = withConf("spark.rowmatch.enabled" -> "true") { val q = hexed; q.collect(); q }
    assert(results(byRows).contains("(results by rows: "), results(byRows))
    // an overflow in a result expression: Spark's error under ANSI, null otherwise
    val big = frame(StructType(Seq(StructField("k", IntegerType), StructField("v", LongType))),
      Seq(Row(1, Long.MaxValue / 2 + 1), Row(2, 1L)), partitions = 1)
    def overflowing = big.groupBy("k").agg((sum("v") * 2).as("twice"))
    withConf("spark.sql.ansi.enabled" -> "true") {
      val vanilla = withConf("spark.rowmatch.enabled" -> "false")(intercept[Exception](overflowing.collect()))
      val (e, q) = withConf("spark.rowmatch.enabled" -> "true") {
        val q = overflowing
        (intercept[Exception](q.collect()), q)
      }
      assert(results(q).contains("(results columnar)"), results(q))
      assert(String.valueOf(vanilla.getMessage).contains("ARITHMETIC_OVERFLOW"), vanilla)
      assert(String.valueOf(e.getMessage).contains("ARITHMETIC_OVERFLOW"), e)
    }
    withConf("spark.sql.ansi.enabled" -> "false") {
      checkAnswerAndOperator(overflowing, minOperators = 2)
    }
  }

  test("plugin settings switch replacement off per kind") {
    withConf("spark.rowmatch.aggregate.enabled" -> "false") {
      val df = mixed.groupBy("s").agg(sum("l"))
      df.collect()
      assert(rowmatchAggregates(df) == 0)
      assert(fallbackReasons(df).exists(_.contains("spark.rowmatch.aggregate.enabled=false")))
      val dedup = mixed.select("s").distinct()
      dedup.collect()
      assert(rowmatchAggregates(dedup) >= 1)
    }
    withConf("spark.rowmatch.dedup.enabled" -> "false") {
      val dedup = mixed.select("s").distinct()
      dedup.collect()
      assert(rowmatchAggregates(dedup) == 0)
    }
  }

  test("running out of spark.rowmatch.memory.limit is a clear error") {
    withConf("spark.rowmatch.memory.limit" -> "64k") {
      val e = intercept[Exception](spark.range(0, 200000, 1, 2).selectExpr("id", "cast(id as string) s")
        .select("s").distinct().collect())
      var c: Throwable = e
      var found = false
      while (c != null && !found) {
        found = String.valueOf(c.getMessage).contains("spark.rowmatch.memory.limit")
        c = c.getCause
      }
      assert(found, e)
    }
  }

  test("a sort aggregate whose output order a sort-merge join relies on stays vanilla") {
    // Spark's own sort-merge join (not Rowmatch's replacement) is the parent that relies on the order.
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1", "spark.sql.join.preferSortMergeJoin" -> "true",
        "spark.rowmatch.join.replaceSortMergeJoin" -> "false") {
      // first() of a column that depends only on the key: deterministic, and a string buffer makes
      // Spark plan a sort aggregate, whose sorted output lets the join skip its own sort.
      val named = mixed.withColumn("name", concat(lit("n"), col("i").cast("string")))
      val query = () => {
        val left = named.groupBy("i").agg(first("name").as("fname"))
        val right = named.select(col("i").as("j"), col("l"))
        left.join(right, left("i") === right("j")).select("i", "fname", "l")
      }
      checkAnswerAndOperator(query(), minOperators = 1)
      val df = withConf("spark.rowmatch.enabled" -> "true") {
        val d = query()
        d.collect()
        d
      }
      val plan = executedNodes(df)
      val joinReliesOnAggOrder = plan.exists(n => n.nodeName == "SortMergeJoin" &&
        n.children.exists(c => c.nodeName == "SortAggregate" ||
          (c.nodeName == "InputAdapter" && c.children.exists(_.nodeName == "SortAggregate"))))
      // The final sort aggregate feeds the join directly (no sort between) and must have stayed vanilla.
      assert(joinReliesOnAggOrder, df.queryExecution.executedPlan.treeString)
      assert(fallbackReasons(df).exists(_.contains("relies on the sort aggregate's output ordering")),
        fallbackReasons(df))
    }
  }

  test("without AQE the columnar rule alone replaces and converts") {
    withConf("spark.sql.adaptive.enabled" -> "false") {
      checkAnswerAndOperator(mixed.groupBy("s", "b").agg(count("*"), sum("l"), avg("d"), max("i")),
        exactOperators = Some(2), tolerance = 1e-12)
      checkAnswerAndOperator(mixed.select("d", "s").distinct(), exactOperators = Some(2))
      checkAnswerAndOperator(mixed.groupBy("s").agg(countDistinct("i")), minOperators = 3)
    }
  }
}
