package io.rowmatch.spark

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.{CoalescedMapperPartitionSpec, CoalescedPartitionSpec, PartialMapperPartitionSpec, PartialReducerPartitionSpec, ShufflePartitionSpec}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.{DataFrame, Row}

import io.rowmatch.spark.arrow.RowmatchFilterExec
import io.rowmatch.spark.joins.{JoinData, JoinQueryTest}
import io.rowmatch.spark.shuffle.RowmatchShuffleExchangeExec

/**
 * The Arrow shuffle (RowmatchShuffleExchange) under Rowmatch joins and aggregates: answers equal vanilla
 * Spark's, the exchange actually ran, AQE's coalesced, skew-split and local reads see the same rows, and a
 * Rowmatch exchange and a vanilla one agree on partitions (a join reads one side from each).
 */
class ArrowShuffleSuite extends JoinQueryTest {

  private def arrowShuffles(df: DataFrame): Seq[RowmatchShuffleExchangeExec] =
    executedNodes(df).collect { case e: RowmatchShuffleExchangeExec => e }

  private def vanillaShuffles(df: DataFrame): Seq[ShuffleExchangeExec] =
    executedNodes(df).collect { case e: ShuffleExchangeExec => e }

  /** The query with the plugin on; asserts `expected` Arrow shuffles ran and returns the frame. */
  private def ranArrowShuffles(query: => DataFrame, expected: Int): DataFrame = {
    val df = query
    df.collect()
    val n = arrowShuffles(df).size
    assert(n == expected, s"expected $expected RowmatchShuffleExchange, found $n in\n${planText(df)}")
    df
  }

  test("group-by over every atomic key type: the partial and final aggregates meet through the Arrow shuffle") {
    withConf("spark.sql.shuffle.partitions" -> "7") {
      for (key <- JoinData.keyColumns) {
        def query = JoinData.allTypes(spark, 300, seed = key.hashCode, domain = 9)
          .groupBy(col(key)).agg(count(lit(1)).as("n"), max(col("payload")).as("m"))
        checkAnswerAndOperator(query, exactOperators = Some(2))
        ranArrowShuffles(query, 1)
      }
    }
  }

  test("distinct and dropDuplicates carry every column type through the shuffle unchanged") {
    withConf("spark.sql.shuffle.partitions" -> "5") {
      def distinctAll = JoinData.allTypes(spark, 400, seed = 3, nulls = 0.3, domain = 12).drop("payload").distinct()
      checkAnswerAndOperator(distinctAll)
      ranArrowShuffles(distinctAll, 1)
      def dedup = JoinData.allTypes(spark, 400, seed = 4, domain = 12).dropDuplicates("i", "s")
      checkAnswerAndOperator(dedup)
      ranArrowShuffles(dedup, 1)
    }
  }

  test("a global aggregate shuffles to a single partition; empty input still gives one row") {
    def query = JoinData.intKeys(spark, 500, 40, seed = 5).agg(sum("v"), count("k"), max("k"))
    checkAnswerAndOperator(query, exactOperators = Some(2))
    ranArrowShuffles(query, 1)
    def empty = JoinData.intKeys(spark, 500, 40, seed = 5).where(col("v") < 0).agg(sum("v"), count("k"))
    val rows = checkAnswerAndOperator(empty, exactOperators = Some(2))
    assert(rows == Seq(Row(null, 0L)))
  }

  for (st <- Seq(ShuffledHash, SortMerge)) {
    test(s"joins read both sides through Arrow shuffles, every join type, ${st.name}") {
      withConf("spark.sql.shuffle.partitions" -> "6") {
        for (jt <- joinTypes) {
          def query = JoinData.allTypes(spark, 250, seed = 7, domain = 8).select(col("l"), col("s"), col("payload"))
            .join(JoinData.allTypes(spark, 200, seed = 8, domain = 8).select(col("l").as("l2"), col("s").as("s2"),
              col("d")), col("l") === col("l2") && col("s") === col("s2"), jt)
          checkJoin(st)(query)
          withConf(st.conf: _*)(ranArrowShuffles(query, 2))
        }
      }
    }
  }

  test("the isnotnull filters Spark infers on join keys run on Arrow below the shuffle, null keys dropped") {
    withConf("spark.sql.shuffle.partitions" -> "5") {
      spark.range(0, 3000).selectExpr("if(id % 7 = 0, null, id % 400) as k", "id as v",
        "if(id % 5 = 0, null, concat('s', id % 9)) as s").write.mode("overwrite").parquet(dir("nullkeys"))
      def left = spark.read.parquet(dir("nullkeys"))
      def right = spark.read.parquet(dir("nullkeys")).toDF("k2", "v2", "s2")
      for (st <- Seq(ShuffledHash, SortMerge, Broadcast)) {
        def query = left.join(right, col("k") === col("k2") && col("s") === col("s2"))
        checkJoin(st)(query)
        withConf(st.conf: _*) {
          val df = query
          df.collect()
          val filters = executedNodes(df).collect { case f: RowmatchFilterExec => f }
          // Both sides' filters, a broadcast build side's too: the Arrow broadcast reads Arrow batches. A broadcast
          // join's probe side has none: the join drops null keys itself (DropKeyNotNullFilters); below a shuffle the
          // filter stays, so the exchange carries no row the join would drop.
          val expected = if (st == Broadcast) 1 else 2
          assert(filters.size == expected, s"expected $expected RowmatchFilter in\n${planText(df)}")
          assert(filters.forall(_.output.filter(a => Set("k", "s", "k2", "s2").contains(a.name)).forall(!_.nullable)))
        }
      }
    }
  }

  private def dir(name: String): String =
    java.nio.file.Files.createDirectories(java.nio.file.Path.of("target", "arrow-shuffle-suite")).resolve(name).toString

  test("a vanilla exchange and an Arrow exchange put every key in the same partition") {
    // The left side carries an array column, which the Arrow shuffle does not encode: its exchange stays
    // vanilla (with the reason) while the right side's becomes an Arrow shuffle. Answers equal to vanilla
    // Spark's on many partitions prove both partition by the same hash.
    withConf("spark.sql.shuffle.partitions" -> "11") {
      def left = JoinData.allTypes(spark, 300, seed = 9, domain = 40)
        .select(col("l"), col("s"), array(col("i"), col("i")).as("arr"))
      def right = JoinData.allTypes(spark, 300, seed = 10, domain = 40).select(col("l").as("l2"), col("s").as("s2"))
      def query = left.join(right, col("l") === col("l2") && col("s") === col("s2"))
      checkJoin(ShuffledHash)(query)
      withConf(ShuffledHash.conf: _*) {
        val df = ranArrowShuffles(query, 1)
        assert(vanillaShuffles(df).size == 1, planText(df))
        assert(fallbackReasons(df).exists(r => r.startsWith("Exchange") && r.contains("arr")), planText(df))
      }
    }
  }

  test("AQE coalesces the Arrow shuffle's small partitions") {
    withConf("spark.sql.shuffle.partitions" -> "50", "spark.sql.adaptive.coalescePartitions.enabled" -> "true") {
      def query = JoinData.intKeys(spark, 2000, 300, seed = 12).groupBy("k").agg(sum("v"), count(lit(1)))
      checkAnswerAndOperator(query, exactOperators = Some(2))
      val df = ranArrowShuffles(query, 1)
      val reads = executedNodes(df).collect { case r: AQEShuffleReadExec => r }
      assert(reads.exists(r => r.isCoalescedRead && r.partitionSpecs.size < 50), planText(df))
    }
  }

  test("AQE's local read of an Arrow shuffle after it turns a shuffled join into a broadcast join") {
    // The filter hides how small the right side is until its shuffle ran; AQE then broadcasts it and
    // reads the left side's shuffle output locally (mapper-ranged specs) instead of by reducer.
    withConf("spark.sql.shuffle.partitions" -> "6", "spark.sql.autoBroadcastJoinThreshold" -> "100k",
      "spark.sql.join.preferSortMergeJoin" -> "true",
      "spark.sql.adaptive.localShuffleReader.enabled" -> "true") {
      // Planned from their input sizes (about 600 KB each), neither side is small enough to broadcast.
      def left = JoinData.intKeys(spark, 30000, 200, seed = 13)
      // 3,000 rows after the filter: tens of small batches per partition, read as Arrow batches by the Arrow
      // broadcast AQE puts above it.
      def right = JoinData.intKeys(spark, 30000, 200, seed = 14).toDF("k2", "v2").where(col("v2") % 10 === 0)
      def query = left.join(right, col("k") === col("k2"))
      val expected = withConf("spark.rowmatch.enabled" -> "false")(query.collect().toSeq)
      val df = query
      val actual = df.collect().toSeq
      assertSameRows(expected, actual, planText(df))
      assert(arrowShuffles(df).nonEmpty, planText(df))
      assert(executedNodes(df).exists { case r: AQEShuffleReadExec => r.isLocalRead; case _ => false }, planText(df))
      val broadcastOverArrowShuffle = executedNodes(df).exists {
        case b: org.apache.spark.sql.execution.exchange.RowmatchBroadcastExchangeExec =>
          b.collectFirst { case q: org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec =>
            q.shuffle.isInstanceOf[RowmatchShuffleExchangeExec] }.getOrElse(false)
        case _ => false
      }
      assert(broadcastOverArrowShuffle, planText(df))
    }
  }

  test("every AQE partition spec over an Arrow shuffle reads the same rows") {
    withConf("spark.sql.shuffle.partitions" -> "5") {
      val df = JoinData.allTypes(spark, 600, seed = 15, domain = 30).repartition(3)
        .groupBy(col("l"), col("s")).agg(count(lit(1)).as("n"))
      df.collect()
      val exchange = arrowShuffles(df).head
      val reducers = exchange.numPartitions
      val mappers = exchange.numMappers
      assert(mappers == 3 && reducers == 5)
      def read(specs: Seq[ShufflePartitionSpec]): Seq[String] = {
        val types = exchange.output.map(_.dataType)
        exchange.getShuffleRDD(specs.toArray)
          .asInstanceOf[org.apache.spark.rdd.RDD[org.apache.spark.sql.vectorized.ColumnarBatch]]
          .mapPartitions(_.flatMap(b => b.rowIterator().asScala.map(r => ArrowShuffleSuite.render(r, types)).toSeq))
          .collect().toSeq.sorted
      }
      val whole = read(Seq(CoalescedPartitionSpec(0, reducers)))
      assert(whole.nonEmpty)
      assert(read((0 until reducers).map(r => CoalescedPartitionSpec(r, r + 1))) == whole)
      assert(read((0 until reducers).flatMap(r =>
        Seq(PartialReducerPartitionSpec(r, 0, 1, 0L), PartialReducerPartitionSpec(r, 1, mappers, 0L)))) == whole)
      assert(read((0 until mappers).map(m => PartialMapperPartitionSpec(m, 0, reducers))) == whole)
      assert(read(Seq(CoalescedMapperPartitionSpec(0, 2, reducers), CoalescedMapperPartitionSpec(2, 3, reducers)))
        == whole)
      assert(read(Seq(CoalescedPartitionSpec(0, 2), CoalescedPartitionSpec(2, reducers))) == whole)
    }
  }

  test("spark.rowmatch.shuffle.enabled=false keeps Spark's exchange and says why") {
    withConf("spark.rowmatch.shuffle.enabled" -> "false") {
      def query = JoinData.intKeys(spark, 300, 20, seed = 16).groupBy("k").agg(sum("v"))
      checkAnswerAndOperator(query, exactOperators = Some(2))
      val df = ranArrowShuffles(query, 0)
      assert(fallbackReasons(df).exists(_.contains("spark.rowmatch.shuffle.enabled")), planText(df))
    }
  }

  test("without AQE the columnar rule alone places the Arrow shuffle") {
    withConf("spark.sql.adaptive.enabled" -> "false", "spark.sql.shuffle.partitions" -> "4") {
      def query = JoinData.allTypes(spark, 300, seed = 17, domain = 9).groupBy(col("s"), col("dec")).agg(count(lit(1)))
      checkAnswerAndOperator(query, exactOperators = Some(2))
      ranArrowShuffles(query, 1)
    }
  }
}

object ArrowShuffleSuite {
  /** A row as text that tells every value apart (raw float bits), for multiset comparisons. */
  def render(r: InternalRow, types: Seq[DataType]): String = types.zipWithIndex.map { case (t, i) =>
    if (r.isNullAt(i)) "null"
    else t match {
      case DoubleType => "D" + java.lang.Double.doubleToRawLongBits(r.getDouble(i))
      case FloatType => "F" + java.lang.Float.floatToRawIntBits(r.getFloat(i))
      case BinaryType => r.getBinary(i).mkString("B", ",", "")
      case other => r.get(i, other).toString
    }
  }.mkString("(", "|", ")")
}
