package io.rowmatch.spark.memory

import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.{TaskContext, TaskMemoryAccess}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.{LongType, StructField, StructType}

import io.rowmatch.spark.{RowComparison, RowmatchQueryTest}
import io.rowmatch.spark.aggregate.RowmatchHashAggregateExec

/**
 * Rowmatch's memory in Spark's memory manager, in real tasks: a 38 MB execution pool (spark.testing.memory),
 * one task at a time. A Rowmatch partial aggregation reads rows from an RDD whose iterator, in the same task,
 * watches the TaskMemoryManager or feeds a Spark sorter (UnsafeExternalSorter, what SortExec uses):
 *  - while the aggregation holds its state, the TaskMemoryManager reports at least what Rowmatch holds;
 *  - a Spark sorter growing in the task makes the aggregation spill (between its input batches);
 *  - the aggregation growing makes a Spark sorter that holds memory spill;
 * neither fails the task, and answers equal vanilla Spark's (which runs the same sorter).
 */
class MemoryAccountingSuite extends RowmatchQueryTest {
  override protected lazy val spark: SparkSession = SparkSession.builder()
    .master("local[1]")
    .appName(getClass.getSimpleName)
    .config("spark.sql.extensions", "io.rowmatch.spark.RowmatchExtensions")
    .config("spark.sql.shuffle.partitions", "2")
    .config("spark.ui.enabled", "false")
    .config("spark.testing.memory", (64L << 20).toString) // 60% of it: the unified pool
    .config("spark.testing.reservedMemory", "0")
    .config("spark.buffer.pageSize", "1m")
    .config("spark.rowmatch.aggregate.skipPartial.enabled", "false") // the partial aggregation keeps its state
    .getOrCreate()

  import MemoryAccountingSuite._

  private val schema = StructType(Seq(StructField("k", LongType), StructField("v", LongType)))

  /**
   * One partition of Rows rows over `keys` keys. `sorterFirst`: before the rows, a Spark sorter takes 30 MB and is read from (sorted);
   * `sorterLater`: from the middle row on, every row adds 1 KB to a Spark sorter (40 MB in all). Either way,
   * every 10000 rows the TaskMemoryManager's figure and Rowmatch's are sampled (the largest Rowmatch figure,
   * and the manager's at that moment).
   */
  private def input(sorterFirst: Boolean, sorterLater: Boolean, keys: Int): DataFrame = {
    val rows = spark.sparkContext.parallelize(Seq(0), 1).mapPartitions { _ =>
      val task = TaskContext.get()
      val sorter = if (sorterFirst || sorterLater) TaskMemoryAccess.sorter() else null
      val record = new Array[Byte](1024)
      if (sorterFirst) {
        for (i <- 0 until 30 * 1024) {
          sorter.insertRecord(record, org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET, record.length, i, false)
        }
        // Sorted and being read, as SortExec's output is: only then does a sorter spill for another consumer.
        val sorted = sorter.getSortedIterator()
        sorted.loadNext()
      }
      Iterator.range(0, Rows).map { i =>
        if (sorterLater && i >= Rows / 2 && i < Rows / 2 + 40 * 1024) {
          sorter.insertRecord(record, org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET, record.length, i, false)
        }
        if (i % 10000 == 0) {
          val m = TaskArrowMemory.memoryOf(task)
          if (m != null && m.inUse() > Seen.rowmatchInUse.get()) {
            Seen.rowmatchInUse.set(m.inUse())
            Seen.taskConsumption.set(TaskMemoryAccess.consumption())
          }
        }
        if (i == Rows - 1 && sorter != null) {
          Seen.sorterSpill.set(sorter.getSpillSize)
        }
        Row(i.toLong % keys, i.toLong)
      }
    }
    spark.createDataFrame(rows, schema)
  }

  private def query(df: DataFrame): DataFrame = df.groupBy("k").sum("v").selectExpr("k % 100 as g", "`sum(v)` as s")
    .groupBy("g").agg(org.apache.spark.sql.functions.sum("s"), org.apache.spark.sql.functions.count("s"))

  /** Vanilla's answer, then Rowmatch's (compared); returns the Rowmatch DataFrame (its metrics are set). */
  private def check(sorterFirst: Boolean, sorterLater: Boolean, keys: Int = 300000): DataFrame = {
    val expected = withConf("spark.rowmatch.enabled" -> "false") {
      query(input(sorterFirst, sorterLater, keys)).collect().toSeq
    }
    Seen.reset()
    val df = query(input(sorterFirst, sorterLater, keys))
    val actual = df.collect().toSeq
    assert(rowmatchAggregates(df) > 0, planText(df))
    RowComparison.assertSameRows(expected, actual, ordered = false, tolerance = 0.0, planText(df))
    df
  }

  private def aggregateSpills(df: DataFrame): Long =
    executedNodes(df).collect { case a: RowmatchHashAggregateExec => a.metrics("numSpills").value }.sum

  test("while a Rowmatch aggregation holds memory, the task's memory manager reports it") {
    val df = check(sorterFirst = false, sorterLater = false)
    assert(Seen.rowmatchInUse.get() > 4 * MB, s"Rowmatch held ${Seen.rowmatchInUse.get()} bytes")
    assert(Seen.taskConsumption.get() >= Seen.rowmatchInUse.get(),
      s"the TaskMemoryManager reported ${Seen.taskConsumption.get()} bytes while Rowmatch held " +
        s"${Seen.rowmatchInUse.get()}")
    assert(aggregateSpills(df) == 0, "spilled without pressure")
  }

  test("a Spark sorter growing in the same task makes the Rowmatch aggregation spill, the task goes on") {
    val df = check(sorterFirst = false, sorterLater = true)
    assert(aggregateSpills(df) > 0, s"no Rowmatch spill in\n${planText(df)}")
  }

  test("a Rowmatch aggregation growing makes a Spark sorter of the task spill, the task goes on") {
    check(sorterFirst = true, sorterLater = false, keys = 600000)
    assert(Seen.sorterSpill.get() > 0, "the Spark sorter did not spill")
  }
}

/** Static, so the task's closure refers to it instead of serializing the suite. */
object MemoryAccountingSuite {
  private val Rows = 1200000
  private val MB = 1L << 20

  /** What the last run's task saw (local mode: the task runs in this JVM). */
  private object Seen {
    val rowmatchInUse = new AtomicLong()
    val taskConsumption = new AtomicLong()
    val sorterSpill = new AtomicLong()
    def reset(): Unit = Seq(rowmatchInUse, taskConsumption, sorterSpill).foreach(_.set(0))
  }
}
